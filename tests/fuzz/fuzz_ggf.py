"""Coverage-guided fuzzing of GGF (brett.records.ggf.read_ggf):
``python tests/fuzz/fuzz_ggf.py -max_total_time=30`` (see target.py)."""

from target import main

if __name__ == "__main__":
    main("ggf")
