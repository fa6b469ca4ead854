"""Coverage-guided fuzzing of positions (see target.py):
``python tests/fuzz/fuzz_positions.py -max_total_time=30``."""

from target import main

if __name__ == "__main__":
    main("positions")
