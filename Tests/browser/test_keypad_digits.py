"""The keypad on a phone (390x844): Scientific mode keeps "=" on screen, whole numbers up to
20 digits show every digit with the locale's grouping, and the result scrolls into further
digits (buttons, → ←, a swipe), in English and Chinese."""

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from decimal import Decimal, getcontext

from test_axe import audit
from test_calc import click_keys, display, open_calc, settle
from visible import seen

getcontext().prec = 120
SQRT2 = str(Decimal(2).sqrt()).split(".")[1]  # the digits after the point


def far_digits(b):
    """The display's visible far-digit window: (label, digits) as a person reads them."""
    pieces = [p["text"] for p in seen(b, "[data-display]")]
    return tuple(pieces) if len(pieces) == 2 else (None, "".join(pieces))


def scientific(b):
    b.find_element(By.CSS_SELECTOR, '[data-mode="scientific"]').click()
    b.wait_js("window.tombola.state.mode === 'scientific'")


def digits_text(b):
    return b.find_element(By.CSS_SELECTOR, "[data-digits-info]").text


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_scientific_mode_on_a_phone_keeps_every_key_on_screen(server, browser, size):
    b = open_calc(browser(*size), server.url("/calc"))
    scientific(b)
    boxes = b.js("""return Array.from(document.querySelectorAll('[data-key]'))
        .filter(k => k.offsetParent !== null)
        .map(k => { const r = k.getBoundingClientRect(); return [k.dataset.key, r.top, r.bottom, r.height]; });""")
    assert len(boxes) == 22 + 5 + 24
    height = b.js("return window.innerHeight")
    below = [k for k in boxes if k[2] > height]
    assert below == [], below
    assert min(k[3] for k in boxes) >= 36
    assert b.js("return document.documentElement.scrollWidth") <= size[0]


def test_whole_numbers_up_to_twenty_digits_show_every_digit_grouped(server, browser):
    b = open_calc(browser(), server.url("/calc"))
    scientific(b)
    click_keys(b, ["C", "2", "^", "6", "4", "="])
    settle(b)
    assert display(b) == "18,446,744,073,709,551,616"
    assert b.find_element(By.CSS_SELECTOR, "[data-display]").get_attribute("data-raw") == "18446744073709551616"
    click_keys(b, ["C", "2", "0", "fact"])
    settle(b)
    assert display(b) == "2,432,902,008,176,640,000"


def test_the_result_scrolls_into_proven_digits(server, browser):
    b = open_calc(browser(), server.url("/calc"))
    scientific(b)
    click_keys(b, ["C", "2", "sqrt"])
    settle(b)
    assert display(b) == "1.414213562373095"
    more = b.find_element(By.CSS_SELECTOR, "[data-more-digits]")
    more.click()
    b.wait(lambda: "25" in digits_text(b), 10)
    # the window ends with the 25th digit after the point; the point has left the view, so a
    # label says which digits these are (an exponent, "…0488016887e-25", read as 10^-25: issue 39)
    label, run = far_digits(b)
    first = 25 - len(run) + 1
    assert label == "digits %d–25:" % first and run == SQRT2[first - 1:25] and len(run) >= 8, (label, run)
    assert "e-" not in display(b)
    assert "Proven digits" in digits_text(b)
    for _ in range(3):
        more.click()
    b.wait(lambda: "55" in digits_text(b), 10)
    found = {}
    audit(b, "calc digits en", found)
    assert found == {}
    label, run = far_digits(b)
    first = 55 - len(run) + 1
    assert label == "digits %d–55:" % first and run == SQRT2[first - 1:55], (label, run)
    assert run.endswith("3769480731")
    # ← moves back; past the display's own digits the display comes back
    b.find_element(By.TAG_NAME, "body").send_keys("\ue012" * 12)  # ArrowLeft
    b.wait(lambda: display(b) == "1.414213562373095", 10)
    # → and a swipe to the left move on again
    b.find_element(By.TAG_NAME, "body").send_keys("\ue014" * 2)  # ArrowRight
    b.wait(lambda: "25" in digits_text(b), 10)
    box = b.find_element(By.CSS_SELECTOR, "[data-display-box]")
    ActionChains(b.driver).click_and_hold(box).move_by_offset(-150, 0).release().perform()
    b.wait(lambda: (far_digits(b)[0] or "").endswith(tuple("–%d:" % n for n in range(30, 60))), 10)
    # a new key drops the digits
    click_keys(b, ["C"])
    settle(b)
    assert display(b) == "0" and digits_text(b) == ""
    assert b.errors() == []


def test_a_repeating_result_shows_its_period_in_chinese(server, browser):
    b = open_calc(browser(lang="zh-CN"), server.url("/calc"))
    click_keys(b, ["C", "1", "/", "7", "="])
    settle(b)
    b.find_element(By.CSS_SELECTOR, "[data-more-digits]").click()
    b.wait(lambda: "0.(142857)" in digits_text(b), 10)
    assert "精确值" in digits_text(b) and "循环" in digits_text(b)
    assert b.find_element(By.CSS_SELECTOR, "[data-more-digits]").text == "更多位数"
    found = {}
    audit(b, "calc digits zh", found)
    assert found == {}
