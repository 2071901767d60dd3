"""The keypad page over /ws/calc in Chromium: clicks, keyboard, localized
errors, grouping, history recall, reconnects and the phone layout."""

import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select


def open_calc(b, url):
    b.get(url)
    b.wait_js("window.tombola && window.tombola.state.received")
    return b


def display(b):
    return b.find_element(By.CSS_SELECTOR, "[data-display]").text


def click_keys(b, keys):
    for k in keys:
        b.find_element(By.CSS_SELECTOR, '[data-key="%s"]' % k).click()


def settle(b, timeout=10):
    """Waits until every key sent has been answered."""
    b.wait_js("window.tombola.socket.backlog === 0 && window.tombola.state.connection === 'online'", timeout)


def type_keys(b, text):
    b.find_element(By.TAG_NAME, "body").send_keys(text)


def test_keypad_computes_a_calculation_typed_by_clicks(server, browser):
    b = open_calc(browser(), server.url("/calc"))
    click_keys(b, ["1", "2", "+", "7"])
    settle(b)
    assert display(b) == "7"
    assert "12" in b.find_element(By.CSS_SELECTOR, "[data-expression]").text
    click_keys(b, ["="])
    settle(b)
    assert display(b) == "19"
    assert b.errors() == []


def test_keypad_computes_a_calculation_typed_on_the_keyboard(server, browser):
    b = open_calc(browser(1280, 800), server.url("/calc"))
    type_keys(b, "12*3")
    type_keys(b, Keys.ENTER)
    settle(b)
    assert display(b) == "36"
    type_keys(b, "45")
    type_keys(b, Keys.BACKSPACE)
    settle(b)
    assert display(b) == "4"
    type_keys(b, Keys.ESCAPE)
    settle(b)
    assert display(b) == "0"
    type_keys(b, "0,5+0.25=")
    settle(b)
    assert display(b) == "0.75"


def test_divide_by_zero_shows_a_localized_message_in_english_and_chinese(server, browser):
    b = open_calc(browser(), server.url("/calc"))
    click_keys(b, ["5", "/", "0", "="])
    settle(b)
    # The page words the error from the `error` code (the server's `display` is English only).
    assert b.js("return window.tombola.state.error") == "divide_by_zero"
    assert b.find_element(By.CSS_SELECTOR, "[data-display]").get_attribute("data-error") == "divide_by_zero"
    assert display(b) == "Cannot divide by zero"
    Select(b.find_element(By.CSS_SELECTOR, "[data-lang-switch]")).select_by_value("zh")
    assert display(b) == "除数不能为零"
    assert b.js("return document.documentElement.lang") == "zh-Hans"
    click_keys(b, ["C"])
    settle(b)
    assert display(b) == "0"


def test_page_starts_in_chinese_when_the_browser_prefers_it(server, browser):
    b = open_calc(browser(lang="zh-CN"), server.url("/calc"))
    assert b.js("return document.documentElement.lang") == "zh-Hans"
    click_keys(b, ["8", "/", "0", "="])
    settle(b)
    assert display(b) == "除数不能为零"


def test_display_groups_digits_without_changing_them(server, browser):
    b = open_calc(browser(), server.url("/calc"))
    click_keys(b, ["1", "2", "3", "4", "5", "6", "7", ".", "5", "0"])
    settle(b)
    assert display(b) == "1,234,567.50"
    assert b.find_element(By.CSS_SELECTOR, "[data-display]").get_attribute("data-raw") == "1234567.50"


def test_history_entry_recalls_its_result(server, browser):
    b = open_calc(browser(), server.url("/calc"))
    click_keys(b, ["C", "6", "*", "7", "=", "C"])
    settle(b)
    assert display(b) == "0"
    items = b.find_elements(By.CSS_SELECTOR, "[data-history] [data-recall]")
    assert items, "history is empty after a calculation"
    b.execute_script("arguments[0].scrollIntoView()", items[0])
    items[0].click()
    settle(b)
    assert display(b) == "42"


def test_reload_resumes_the_same_session(server, browser):
    b = open_calc(browser(), server.url("/calc"))
    click_keys(b, ["C", "5", "+"])
    settle(b)
    b.refresh()
    b.wait_js("window.tombola && window.tombola.state.received && window.tombola.state.connection === 'online'")
    click_keys(b, ["3", "="])
    settle(b)
    assert display(b) == "8"


def test_keys_pressed_while_offline_are_sent_in_order_after_reconnect(server, browser, proxy):
    b = open_calc(browser(), server.url("/calc", proxy.port))
    click_keys(b, ["C", "1", "2", "+"])
    settle(b)
    proxy.cut()
    b.wait_js("window.tombola.state.connection === 'offline'")
    assert b.find_element(By.CSS_SELECTOR, "[data-offline-banner]").is_displayed()
    click_keys(b, ["7", "="])
    assert b.js("return window.tombola.socket.backlog") == 2
    # The banner follows a language switch while offline.
    banner = b.find_element(By.CSS_SELECTOR, "[data-offline-banner]")
    english = banner.text
    Select(b.find_element(By.CSS_SELECTOR, "[data-lang-switch]")).select_by_value("zh")
    b.wait(lambda: banner.text != english and "连接" in banner.text, 3)
    Select(b.find_element(By.CSS_SELECTOR, "[data-lang-switch]")).select_by_value("en")
    proxy.restore()
    settle(b, timeout=20)
    assert display(b) == "19"
    assert not b.find_element(By.CSS_SELECTOR, "[data-offline-banner]").is_displayed()
    assert b.errors(allow=("WebSocket connection to", "net::ERR_")) == []


def test_scientific_toggle_shows_more_keys(server, browser):
    b = open_calc(browser(), server.url("/calc"))
    sin = b.find_element(By.CSS_SELECTOR, '[data-key="sin"]')
    assert not sin.is_displayed()
    b.find_element(By.CSS_SELECTOR, '[data-mode="scientific"]').click()
    b.wait_js("window.tombola.state.mode === 'scientific'")
    assert sin.is_displayed()
    assert b.find_element(By.CSS_SELECTOR, '[data-angle="deg"]').is_displayed()
    b.find_element(By.CSS_SELECTOR, '[data-mode="basic"]').click()
    b.wait_js("window.tombola.state.mode === 'basic'")


def test_phone_layout_has_thumb_sized_keys_and_no_horizontal_scroll(server, browser):
    b = open_calc(browser(360, 740), server.url("/calc"))
    assert b.js("return document.documentElement.scrollWidth") <= 360
    sizes = b.js("""return Array.from(document.querySelectorAll('[data-key]'))
        .filter(k => k.offsetParent !== null)
        .map(k => { const r = k.getBoundingClientRect(); return [k.dataset.key, r.width, r.height]; });""")
    assert sizes
    small = [s for s in sizes if s[1] < 48 or s[2] < 48]
    assert small == []
    touch = b.js("return getComputedStyle(document.querySelector('[data-key=\"7\"]')).touchAction")
    assert touch == "manipulation"
