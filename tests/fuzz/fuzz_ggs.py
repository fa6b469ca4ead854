"""Coverage-guided fuzzing of ggs (see target.py):
``python tests/fuzz/fuzz_ggs.py -max_total_time=30``."""

from target import main

if __name__ == "__main__":
    main("ggs")
