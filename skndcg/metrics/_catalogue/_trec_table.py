"""trec_eval 10.0's measure table, nicknames and families, as skndcg reads them
(data only, from trec_eval's ``measures.c`` and ``m_*.c``; ``_trec_names.py``
translates the names with it).
"""

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALLS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

#: The counts trec_eval prints, computed by ``skndcg score`` from each query's
#: rows (their summary is a sum, ``num_q`` a number of queries).
COUNTS = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret")

# trec_eval family -> (skndcg measure, how its parameters read, defaults):
# "none" takes no parameter, "cut" integer cut-offs (name@k), "recall" and
# "mult" a number, the skndcg parameter of that name (``DOUBLE``): "recall" the
# recall levels of iprec.
TREC_FAMILIES = {
    "map": ("map", "none", ()),
    "gm_map": ("gm_map", "none", ()),
    "Rprec": ("rprec", "none", ()),
    "bpref": ("bpref", "none", ()),
    "infAP": ("infap", "none", ()),
    "recip_rank": ("mrr", "none", ()),
    "iprec_at_recall": ("iprec", "recall", _RECALLS),
    "P": ("p", "cut", _CUTOFFS),
    "recall": ("r", "cut", _CUTOFFS),
    "ndcg": ("ndcg", "none", ()),
    "ndcg_cut": ("ndcg", "cut", _CUTOFFS),
    "map_cut": ("map", "cut", _CUTOFFS),
    "success": ("hit", "cut", (1, 5, 10)),
    "gm_bpref": ("gm_bpref", "none", ()),
    "set_P": ("set_p", "none", ()),
    "set_recall": ("set_recall", "none", ()),
    "set_map": ("set_map", "none", ()),
    "set_relative_P": ("set_relative_p", "none", ()),
    "set_F": ("set_f", "vector", ()),
    "utility": ("utility", "vector", ()),
    "Rprec_mult": ("rprec_mult", "mult", _MULTS),
    "11pt_avg": ("iprec_11pt", "none", ()),
    "relative_P": ("relative_p", "cut", _CUTOFFS),
    "unj": ("unj", "cut", (5, 10, 20)),
    "num_nonrel_judged_ret": ("nonrel_judged", "none", ()),
    "binG": ("bin_g", "none", ()),
    "G": ("g", "none", ()),
    "ndcg_rel": ("ndcg_rel", "none", ()),
    "Rndcg": ("rndcg", "none", ()),
    "dcg": ("dcg", "none", ()),
    "ideal_dcg": ("idcg", "none", ()),
    "yaap": ("yaap", "none", ()),
    "rbp": ("trec_rbp", "pairs", ()),
    "rbp_resid": ("trec_rbp_resid", "pairs", ()),
}
#: Families trec_eval prints as integers, summed over queries.
SUMMED = ("num_nonrel_judged_ret",)
# Families whose parameters are the numbers of one measure, in this order
# (trec_eval names the line with them as given: utility_2,-1,0,0).
VECTOR = {
    "set_F": ("beta",),
    "utility": ("rel_ret", "nonrel_ret", "rel_missed", "nonrel_missed"),
}
# Families whose parameters are name=value pairs (rbp.p=0.95), and the names
# skndcg reads (trec_eval's rbp also takes level=gain pairs; skndcg does not).
PAIRS = {"rbp": ("p",), "rbp_resid": ("p",)}
#: Families printed per query only, as text, and their default length
#: (``m_relstring.c``: the first 10 documents' judgments).
TEXT = {"relstring": 10}
#: Families whose parameters are recall levels averaged into one line
#: (``11pt_avg..25,.5,.75``: the mean of iprec at 0.25, 0.5 and 0.75).
LEVELS = ("11pt_avg",)
# Families with a number as parameter, and its range.
DOUBLE = {"recall": (0.0, 1.0), "mult": (0.0, 1e9)}

#: trec_eval 10.0's measure table (``measures.c``): the order it prints in.
TABLE_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
    "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
    "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
    "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
    "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map",
    "set_F", "num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid", "unj",
)  # fmt: skip

#: trec_eval 10.0's nicknames (``measures.c``).
NICKNAMES = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
        "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
        "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
        "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
        "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility",
        "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
    ),
}  # fmt: skip

# ir_measures names the grammar does not read by case alone.
IR_MEASURES = {
    "numq": "num_q",
    "numret": "num_ret",
    "numrel": "num_rel",
    "numrelret": "num_rel_ret",
    "success": "hit",
    "setp": "set_p",
    "setr": "set_recall",
    "setf": "set_f",
    "setap": "set_map",
}
