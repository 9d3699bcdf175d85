"""Reporting: a run's results for people. ``summary`` words the tables, ``report`` writes the
HTML report with its frame strips, ``leaderboard`` the models side by side, ``journal`` keeps
each output's record as it is scored so an interrupted run resumes.
"""
