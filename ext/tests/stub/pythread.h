/* A stand-in for CPython's pythread.h locks, for ext/tests/harness.c only.
 *
 * CPython's lock is a binary semaphore: not recursive, and released by any
 * thread (brett_handoff.h releases it from the posting thread).  That is what
 * these are: a Win32 semaphore, or a POSIX one. */
#ifndef BRETT_STUB_PYTHREAD_H
#define BRETT_STUB_PYTHREAD_H

#include <stdlib.h>

#define WAIT_LOCK 1
#define NOWAIT_LOCK 0

#if defined(_WIN32)
#include <windows.h>
typedef HANDLE PyThread_type_lock;

static PyThread_type_lock PyThread_allocate_lock(void)
{
    return CreateSemaphoreA(NULL, 1, 1, NULL);
}
static void PyThread_free_lock(PyThread_type_lock lock)
{
    CloseHandle(lock);
}
static int PyThread_acquire_lock(PyThread_type_lock lock, int wait)
{
    return WaitForSingleObject(lock, wait ? INFINITE : 0) == WAIT_OBJECT_0;
}
static void PyThread_release_lock(PyThread_type_lock lock)
{
    ReleaseSemaphore(lock, 1, NULL);
}
#else
#include <semaphore.h>
typedef sem_t *PyThread_type_lock;

static PyThread_type_lock PyThread_allocate_lock(void)
{
    sem_t *s = (sem_t *)malloc(sizeof(sem_t));
    if (s && sem_init(s, 0, 1) != 0) {
        free(s);
        s = NULL;
    }
    return s;
}
static void PyThread_free_lock(PyThread_type_lock lock)
{
    sem_destroy(lock);
    free(lock);
}
static int PyThread_acquire_lock(PyThread_type_lock lock, int wait)
{
    if (!wait)
        return sem_trywait(lock) == 0;
    while (sem_wait(lock) != 0) {
    }
    return 1;
}
static void PyThread_release_lock(PyThread_type_lock lock)
{
    sem_post(lock);
}
#endif

#endif /* BRETT_STUB_PYTHREAD_H */
