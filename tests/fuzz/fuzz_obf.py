"""Coverage-guided fuzzing of obf (see target.py):
``python tests/fuzz/fuzz_obf.py -max_total_time=30``."""

from target import main

if __name__ == "__main__":
    main("obf")
