"""Coverage-guided fuzzing of WTHOR archives with their name tables
(brett.records.wthor.read_wthor):
``python tests/fuzz/fuzz_wthor.py -max_total_time=30`` (see target.py)."""

from target import main

if __name__ == "__main__":
    main("wthor")
