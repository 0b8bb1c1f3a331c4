"""The statistics every comparison shares: the count-matrix bootstrap and
sign-flip resampling, bootstrap intervals, paired tests and multiple-testing
corrections, sample-size planning, and the guard against a handful of queries."""
