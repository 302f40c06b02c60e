"""The interactive leaderboard page, read as text (the browser tests click it).

The page is rendered from frames shaped as ``leaderboard()`` and
``to_frame()`` (tests/report/_leaderboard_frames.py), so the order, tiers,
escaping, folding of the pairs and the self-containment are checked against
a known ranking.
"""

import base64
import hashlib
import re
import time

import numpy as np
import pytest

from _leaderboard_frames import ODD_NAME, board_and_pairs

from sigtest._report.doc import render_html, render_latex, render_markdown
from sigtest._report.leaderboard_page import CSS, MAX_PAIRS, SCRIPT, leaderboard_html

REMOTE = re.compile(r"""\b(src|href|action|data)\s*=\s*["']?\s*(https?:|//|ftp:)""", re.I)


def _page(board, pairs=None, **kw):
    return render_html([("html", leaderboard_html(board, pairs, **kw), CSS, SCRIPT)], "board")


def _board_rows(page):
    body = page.split('-board">', 1)[1].split("</tbody>", 1)[0]
    return re.findall(r'<tr class="(sgt-t\d+)" data-i="(\d+)" data-q="([^"]*)"', body)


def _pair_rows(page):
    body = page.split('-pairs">', 1)[1].split("</tbody>", 1)[0]
    return re.findall(r'<tr data-i="\d+" data-q="([^"&]*(?:&[a-z]+;[^"&]*)*)&#10;([^"]*)"', body)


def test_the_page_lists_every_system_best_first_with_names_as_text():
    board, pairs = board_and_pairs(60)
    page = _page(board, pairs)
    rows = _board_rows(page)
    assert [int(i) for _, i, _ in rows] == list(range(60))
    assert [q for _, _, q in rows] == [
        n.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") for n in board.index]
    assert ODD_NAME not in page and "<b>" not in page  # escaped everywhere
    assert "60 systems ranked on accuracy" in page


def test_rows_share_a_colour_exactly_when_they_share_a_tier_up_to_the_cycle():
    board, _ = board_and_pairs(60)
    classes = [c for c, _, _ in _board_rows(_page(board))]
    tiers = list(board["tier"])
    for j in range(1, 60):
        assert (classes[j] == classes[j - 1]) == (tiers[j] == tiers[j - 1])
    assert len(set(tiers)) > 3 and len(set(classes)) > 3


def test_the_page_loads_nothing_and_its_policy_allows_only_its_own_code():
    board, pairs = board_and_pairs(30)
    page = _page(board, pairs)
    assert REMOTE.search(page) is None
    assert "@import" not in page and "url(" not in page
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in policy

    def digest(text):
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() \
            + "'"

    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    assert f"style-src {digest(style)};" in policy
    assert f"script-src {digest(script)};" in policy
    assert page.count("<script") == 1 and page.count("<style") == 1


def test_every_pair_is_written_when_there_are_few():
    board, pairs = board_and_pairs(40)
    page = _page(board, pairs)
    shown = _pair_rows(page)
    assert len(shown) == 780
    assert "all 780 pairs" in page


def test_many_pairs_are_cut_to_those_closest_in_the_ranking():
    k = 300  # 44,850 pairs
    board, pairs = board_and_pairs(k)
    page = _page(board, pairs, max_pairs=1000)
    shown = _pair_rows(page)
    assert len(shown) == 1000
    position = {n.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"): i
                for i, n in enumerate(board.index)}
    gaps = np.array([abs(position[a] - position[b]) for a, b in shown])
    # neighbours first: every pair 1, 2 and 3 places apart (299 + 298 + 297), then 106 of 4
    assert np.bincount(gaps).tolist() == [0, 299, 298, 297, 106]
    assert "the 1,000 pairs closest in the ranking of 44,850" in page
    assert "at most 4 places apart" in page
    assert f"{int(pairs['significant'].sum()):,} of 44,850 pairs significant" in page
    assert len(set(shown)) == 1000


def test_a_thousand_systems_make_a_page_of_a_few_megabytes_in_seconds():
    board, pairs = board_and_pairs(1000)  # 499,500 pairs
    start = time.process_time()
    page = _page(board, pairs)
    cpu = time.process_time() - start
    assert len(_board_rows(page)) == 1000 and len(_pair_rows(page)) == MAX_PAIRS
    assert len(page) < 3_000_000  # measured 1.34 MB; every pair written would be ~170 MB
    assert cpu < 10  # measured 0.6 s of CPU on the project's machine


def test_markdown_and_latex_leave_the_page_out():
    board, pairs = board_and_pairs(5)
    blocks = [("paragraph", "before"), ("html", leaderboard_html(board, pairs), CSS, SCRIPT)]
    for render in (render_markdown, render_latex):
        text = render(blocks, "t")
        assert "before" in text and "sgt-" not in text and "<table" not in text


def test_a_page_without_script_keeps_no_policy_and_no_script():
    page = render_html([("paragraph", "plain")], "t")
    assert "<script" not in page and "Content-Security-Policy" not in page


def test_nan_values_print_as_nan_and_sort_last():
    board, _ = board_and_pairs(4)
    board.loc[board.index[2], ["score", "ci_low", "ci_high", "p_best"]] = np.nan
    page = _page(board)
    assert 'data-v="NaN">nan</td>' in page
    assert 'data-v="NaN">n/a</td>' in page


def test_bad_frames_and_options_are_named():
    board, pairs = board_and_pairs(5)
    with pytest.raises(TypeError, match="'board'.*DataFrame.*dict"):
        leaderboard_html(board.to_dict())
    with pytest.raises(ValueError, match=r"'board'.*\['tier'\]"):
        leaderboard_html(board.drop(columns="tier"))
    with pytest.raises(ValueError, match=r"'pairs'.*\['significant'\]"):
        leaderboard_html(board, pairs.drop(columns="significant"))
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="'max_pairs'"):
            leaderboard_html(board, pairs, max_pairs=bad)
    assert isinstance(leaderboard_html(board, pairs, max_pairs=np.int64(3)), str)
    assert isinstance(leaderboard_html(board.iloc[:0]), str)


# ------------------------------------------------------ in the report itself
def _per_item(k, n=300, seed=3):
    from sigtest import BCaInterval, PairedPermutation, compare

    rng = np.random.default_rng(seed)
    acc = np.linspace(0.6, 0.85, k)
    scores = {f"model-{j:02d}": (rng.random(n) < acc[j]).astype(float) for j in range(k)}
    return compare(None, scores, metrics="mean", random_state=0,
                   test=(PairedPermutation(n_resamples=999), BCaInterval(n_resamples=999)))


@pytest.fixture(scope="module")
def twenty_and_twenty_one():
    return _per_item(20), _per_item(21)


def _headings(page):
    return re.findall(r"<h2>(.*?)</h2>", page)


def test_the_html_report_of_more_than_twenty_systems_is_the_page(twenty_and_twenty_one):
    _, result = twenty_and_twenty_one
    page = result.report("html")
    assert _headings(page) == ["Leaderboard", "Methods", "References",
                               "Reproducibility signature"]
    assert page.count("<script>") == 1 and "Content-Security-Policy" in page
    assert [q for _, _, q in _board_rows(page)] == list(result.leaderboard().index)
    assert result.signature() in page
    assert "all 210 pairs" in page
    assert "sgt-" not in result.report("markdown")


def test_twenty_systems_keep_the_report_and_can_ask_for_the_page(twenty_and_twenty_one):
    result, _ = twenty_and_twenty_one
    page = result.report("html")
    assert "<script" not in page and "Scores of each system" in _headings(page)
    page = result.report("html", sections=["leaderboard_page", "signature"])
    assert _headings(page) == ["Leaderboard", "Reproducibility signature"]
    assert len(_board_rows(page)) == 20 and page.count("<script>") == 1
    text = result.report("markdown", sections=["leaderboard_page", "signature"])
    assert "Leaderboard" not in text and "sgt-" not in text  # HTML only


def test_without_tiers_and_with_baseline_pairs_only_the_page_still_reads():
    board, pairs = board_and_pairs(30)
    board["tier"] = ""  # pairs="baseline": not every pair tested, no tiers
    baseline = pairs[pairs["system_a"] == board.index[0]]
    page = _page(board, baseline)
    assert len(_board_rows(page)) == 30
    assert {c for c, _, _ in _board_rows(page)} == {"sgt-t0"}
    assert "Tiers:" not in page
    assert len(_pair_rows(page)) == 29 and "all 29 pairs" in page
