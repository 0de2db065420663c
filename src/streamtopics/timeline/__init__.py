"""Topics through time: a dated corpus' periods, each topic's prevalence in each period and the
topic as each period uses it, from one fitted model (`over_time`); topics that follow the
stream, one snapshot per period (`tracking`); evaluation in time order (`forward`); and their
files and figures (`outputs`). ``docs/timeline.md`` gives the equations and figures on a real
stream."""

from .forward import ForwardScores, forward_chaining
from .over_time import DEFAULT_PRIOR_TOKENS, TopicsOverTime, hellinger, topics_over_time
from .tracking import DEFAULT_TRACKING_FLOOR, TrackedTopics, track_topics

__all__ = ["topics_over_time", "TopicsOverTime", "DEFAULT_PRIOR_TOKENS", "hellinger",
           "track_topics", "TrackedTopics", "DEFAULT_TRACKING_FLOOR", "forward_chaining", "ForwardScores"]
