"""Coverage-guided fuzzing of JSON records (brett.load and brett.load_record):
``python tests/fuzz/fuzz_json.py -max_total_time=30`` (see target.py)."""

from target import main

if __name__ == "__main__":
    main("json")
