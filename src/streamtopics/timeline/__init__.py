"""Topics through time: a dated corpus' periods, each topic's prevalence in each period and the
topic as each period uses it, from one fitted model (`over_time`), and their files and figures
(`outputs`). ``docs/timeline.md`` gives the equations and figures on a real stream."""

from .over_time import DEFAULT_PRIOR_TOKENS, TopicsOverTime, hellinger, topics_over_time

__all__ = ["topics_over_time", "TopicsOverTime", "DEFAULT_PRIOR_TOKENS", "hellinger"]
