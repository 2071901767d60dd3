// Strings of the stage (issue #26): the screen's keyboard control, its shortcut overlay and the
// host's "Screen with controls" link. Merged into i18n.js's tables; same keys in both languages.

export const en = {
  'host.link.screenControls': 'Screen with controls (keep private)',
  'screen.shortcuts': 'Keyboard shortcuts',
  'screen.shortcuts.button': 'Shortcuts (?)',
  'screen.shortcuts.close': 'Close',
  'screen.key.startStop': 'Start / Stop (a presenter clicker works too)',
  'screen.key.startStop.keys': 'Space, Enter, Page Down, Page Up',
  'screen.key.fullscreen': 'Full screen on / off',
  'screen.key.sound': 'Sound on / off',
  'screen.key.pages': 'Earlier / next page of winners',
  'screen.key.help': 'Show / hide these shortcuts',
  'screen.key.noControl': 'Start and Stop work on the screen opened from the host page’s “Screen with controls” link.',
  'screen.presence.hidden': 'The code to enter shows on the screen opened with the host page’s “Screen with controls” link.',
};

export const zh = {
  'host.link.screenControls': '可控制的屏幕（请保密）',
  'screen.shortcuts': '键盘快捷键',
  'screen.shortcuts.button': '快捷键（?）',
  'screen.shortcuts.close': '关闭',
  'screen.key.startStop': '开始 / 停止（也可用翻页笔）',
  'screen.key.startStop.keys': '空格、回车、Page Down、Page Up',
  'screen.key.fullscreen': '全屏开 / 关',
  'screen.key.sound': '声音开 / 关',
  'screen.key.pages': '中奖名单上一页 / 下一页',
  'screen.key.help': '显示 / 隐藏快捷键',
  'screen.key.noControl': '开始和停止只在从主持人页面“可控制的屏幕”链接打开的屏幕上有效。',
  'screen.presence.hidden': '报名验证码显示在从主持人页面“可控制的屏幕”链接打开的屏幕上。',
};
