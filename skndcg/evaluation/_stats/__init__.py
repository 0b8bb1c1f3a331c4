"""The statistics every comparison shares: resampling, tests, planning."""
