"""A small project's code: GPU alerts on top of gpustat (the code the sample tests test)."""

import gpustat


def hot_gpus(limit=90):
    """The indices of the GPUs at `limit` degrees C or more."""
    return [g.index for g in gpustat.new_query() if g.temperature >= limit]


def alert(limit=90):
    """A line for the operator, or None when every GPU is cooler than `limit`."""
    hot = hot_gpus(limit)
    return f"ALERT: GPU {', '.join(map(str, hot))} at {limit} C or more" if hot else None
