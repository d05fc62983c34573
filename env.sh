export TICKMUX_SOCKET=/tmp/tmx/tm.sock XDG_STATE_HOME=/tmp/tmx/state XDG_CONFIG_HOME=/tmp/tmx/cfg SHELL=/bin/sh HOME=/tmp/tmx PS1='$ '
