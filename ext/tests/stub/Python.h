/* A stand-in for CPython's Python.h, for ext/tests/harness.c only: the headers
 * of ext/ that include Python.h (brett_handoff.h) need nothing from it but
 * pythread.h's locks, which the harness provides (pythread.h beside this file). */
#ifndef BRETT_STUB_PYTHON_H
#define BRETT_STUB_PYTHON_H
#endif
