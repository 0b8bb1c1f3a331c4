"""The references every metric docstring cites."""

REFERENCES = """
    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.
    .. [2] C. Burges, T. Shaked, E. Renshaw, A. Lazier, M. Deeds, N. Hamilton and
       G. Hullender, "Learning to rank using gradient descent", ICML 2005.
    .. [3] F. McSherry and M. Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008.
"""
