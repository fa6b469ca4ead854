"""Coverage-guided fuzzing of transcript (see target.py):
``python tests/fuzz/fuzz_transcript.py -max_total_time=30``."""

from target import main

if __name__ == "__main__":
    main("transcript")
