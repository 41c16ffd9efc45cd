"""Every outcome games/ can give has one answer over HTTP.

games/games.h lists the outcomes (enum games_outcome, one meaning each);
api/api_outcomes.c maps each to how it is answered and, for a refusal, to
a problem of api/api_reply.c's table.  An outcome added to the list without
a row would be answered as an internal error: this test fails instead.
"""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def without_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def outcome_names():
    header = without_comments((ROOT / "games" / "games.h").read_text(encoding="utf-8"))
    body = re.search(r"enum\s+games_outcome\s*\{(.*?)\}", header, re.S)
    assert body, "games.h has no enum games_outcome"
    names = [re.match(r"\s*(\w+)", item).group(1)
             for item in body.group(1).split(",") if item.strip()]
    assert names[-1] == "GAMES_OUTCOME_COUNT", "the list ends with GAMES_OUTCOME_COUNT"
    return names[:-1]


def outcome_rows():
    source = without_comments((ROOT / "api" / "api_outcomes.c").read_text(encoding="utf-8"))
    rows = re.findall(r"\[(GAMES_\w+)\]\s*=\s*\{\s*(ANSWER_\w+)\s*,\s*(API_PROBLEM_\w+)",
                      source)
    return {outcome: (answer, problem) for outcome, answer, problem in rows}


def problem_names():
    source = without_comments((ROOT / "api" / "api_reply.c").read_text(encoding="utf-8"))
    return set(re.findall(r"\[(API_PROBLEM_\w+)\]\s*=", source))


def test_every_outcome_has_one_row():
    names = outcome_names()
    rows = outcome_rows()
    assert len(names) == len(set(names))
    missing = [n for n in names if n not in rows]
    assert not missing, f"outcomes without a row in api/api_outcomes.c: {missing}"
    extra = sorted(set(rows) - set(names))
    assert not extra, f"rows for outcomes games.h does not list: {extra}"


def test_refusals_name_a_problem_of_the_table():
    known = problem_names()
    for outcome, (answer, problem) in outcome_rows().items():
        if answer == "ANSWER_PROBLEM":
            assert problem in known, f"{outcome}: {problem} has no row in api/api_reply.c"
            assert problem != "API_PROBLEM_INTERNAL", f"{outcome}: a refusal is no error"
