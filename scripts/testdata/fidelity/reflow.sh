#!/bin/sh
# Long lines that wrap and unwrap as the pane narrows and widens (the case of issue 11): every
# character must survive, on the screen and in the scrollback.
i=1; while [ $i -le 20 ]; do printf 'line %02d\n' $i; i=$((i+1)); done
printf '$ echo\n'
i=0; while [ $i -lt 40 ]; do printf A; i=$((i+1)); done
i=0; while [ $i -lt 40 ]; do printf B; i=$((i+1)); done
printf '\n'
i=0; while [ $i -lt 150 ]; do printf '%d' $((i % 10)); i=$((i+1)); done
printf '\nwide: 中文字符测试中文字符测试中文字符测试中文字符测试中文字符测试中文字符测试 end\n$ '
