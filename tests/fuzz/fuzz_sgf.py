"""Coverage-guided fuzzing of SGF (brett.records.sgf.read_sgf):
``python tests/fuzz/fuzz_sgf.py -max_total_time=30`` (see target.py)."""

from target import main

if __name__ == "__main__":
    main("sgf")
