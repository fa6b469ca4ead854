"""Coverage-guided fuzzing of record files by extension (brett.records.read_records):
``python tests/fuzz/fuzz_formats.py -max_total_time=30`` (see target.py)."""

from target import main

if __name__ == "__main__":
    main("formats")
