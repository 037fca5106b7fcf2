"""Job functions for rq_jobs.py: the worker imports them by name."""


def double(n):
    return n * 2


def boom(msg):
    raise ValueError(msg)


_flaky_key = "rq-test:flaky"


def flaky():
    # Fails on its first run, succeeds on the retry: the count lives in
    # the server, since each run is a forked work horse.
    from rq import get_current_job
    conn = get_current_job().connection
    if conn.incr(_flaky_key) == 1:
        raise RuntimeError("first run fails")
    return "recovered"


def concat(*parts):
    return "-".join(parts)
