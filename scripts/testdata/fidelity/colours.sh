#!/bin/sh
# A colour and attribute page: 16, 256 and 24-bit colours, SGR attributes, erase with colour.
e=$(printf '\033')
for i in 0 1 2 3 4 5 6 7; do printf '%s[3%sm fg%s %s[4%sm bg%s %s[m' "$e" $i $i "$e" $i $i "$e"; done; echo
for i in 0 1 2 3 4 5 6 7; do printf '%s[9%sm br%s %s[10%sm bb%s %s[m' "$e" $i $i "$e" $i $i "$e"; done; echo
i=0; while [ $i -lt 256 ]; do printf '%s[48;5;%sm%4s' "$e" $i $i; i=$((i+1)); [ $((i % 32)) -eq 0 ] && printf '%s[m\n' "$e"; done
i=0; while [ $i -lt 120 ]; do printf '%s[48;2;%s;%s;%sm ' "$e" $((i*2)) $((255-i*2)) 128; i=$((i+1)); done; printf '%s[m\n' "$e"
printf '%s[38:2::255:100:0mcolon rgb%s[m %s[38:5:99mcolon 256%s[m %s[38;2;0;0;1mrgb 0,0,1%s[m\n' "$e" "$e" "$e" "$e" "$e" "$e"
printf '%s[1mbold%s[m %s[2mdim%s[m %s[3mitalic%s[m %s[4munder%s[m %s[4:3mcurly%s[m %s[5mblink%s[m %s[7mreverse%s[m %s[8mhidden%s[m %s[9mstrike%s[m %s[53mover%s[m\n' \
	"$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e" "$e"
printf '%s[1;31mbold red%s[22m normal red%s[m %s[?4mnot underlined%s[m %s[>4;1mnot reset\n' "$e" "$e" "$e" "$e" "$e" "$e"
printf '%s[44;4mblue bg erase:%s[K\n%s[m' "$e" "$e" "$e"
printf 'after\n'
