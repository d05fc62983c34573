#!/bin/sh
# Scroll regions, insert and delete of lines and characters, as full-screen programs use them.
e=$(printf '\033')
i=1; while [ $i -le 28 ]; do printf 'line %02d: the quick brown fox jumps over the lazy dog\n' $i; i=$((i+1)); done
printf '%s[5;15r' "$e"                       # region rows 5-15
printf '%s[15;1H' "$e"; i=1; while [ $i -le 4 ]; do printf '\nscrolled in %d' $i; i=$((i+1)); done
printf '%s[5;1H%sM%sMreverse index' "$e" "$e" "$e"
printf '%s[8;1H%s[2Linserted lines above%s[10;1H%s[1M' "$e" "$e" "$e" "$e"
printf '%s[3S%s[1T' "$e" "$e"
printf '%s[r' "$e"                             # whole screen again
printf '%s[18;10H%s[5@%s[18;30H%s[4P%s[19;5H%s[6X' "$e" "$e" "$e" "$e" "$e" "$e"
printf '%s[20;1H%s[4hINSERTED %s[4l' "$e" "$e" "$e"
printf '%s[21;1Habc%s[3b %s[22;40H%s[1K%s[23;40H%s[0K' "$e" "$e" "$e" "$e" "$e" "$e"
printf '%s[24;1H%s[?7lno wrap: 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789%s[?7h' "$e" "$e" "$e"
printf '%s[25;1Htab\tstops\tand\tback%s[2Ztab' "$e" "$e"
printf '%s[26;1H' "$e"
