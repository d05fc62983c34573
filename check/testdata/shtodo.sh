#!/usr/bin/env bash
# A Tick in bash + jq, written from the draft (tick-protocol-3) alone: a to-do list kept in
# ./.shtodo.json. Requests are read one line at a time and taken apart with bash's own regular
# expressions (the host writes compact JSON; a request that does not match is refused or dropped),
# so describe and read start no process and answer at once (3.3, 4.4); jq keeps the file and
# builds what is stored. Every message is one printf of one line (3.1).
# SHTODO_VARIANT picks what its author decided to get wrong:
#   good         conforms: check finds nothing
#   describerev  each tick/describe hands out a new revision (a side effect, 4.4: C-R1 failure)
#   queryfile    the query "search" appends the query to ./.search-history (5.6: C-K6 failure)
#   token        the state carries an api_token (10, SHOULD NOT: C-S3 warning)
set -u
variant=${SHTODO_VARIANT:-good}
store=./.shtodo.json
[ -f "$store" ] || echo '[]' >"$store"
items=$(jq -c 'if type=="array" then map(tostring) else [] end' "$store") || items='[]'
seq=0
rev=1

descriptor='{"protocol":3,"kind":"example.shtodo","title":"To-do (bash)","description":"A to-do list kept in a file; a person reads it here, an agent adds to it.","revision":"REV","tools":[{"name":"add","description":"Add one item to the list.","mutates":true,"input_schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}},{"name":"list","description":"Read every item, oldest first.","mutates":false,"input_schema":{"type":"object","additionalProperties":false}},{"name":"search","description":"Read the items whose text contains q.","mutates":false,"input_schema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}}]}'

answer() { printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$1" "$2"; }
refuse() { printf '{"jsonrpc":"2.0","id":%s,"error":{"code":%s,"message":"%s"}}\n' "$1" "$2" "$3"; }

state() {
	local extra=''
	[ "$variant" = token ] && extra=',"api_token":"tok-3f9a0c5e"'
	printf '{"seq":%s,"data":{"items":%s%s}}' "$seq" "$items" "$extra"
}

call() { # id, the request line
	local id=$1 line=$2 tool='' rev_sent='' args=''
	[[ $line =~ \"revision\":\"([^\"\\]*)\" ]] && rev_sent=${BASH_REMATCH[1]}
	if [ "$rev_sent" != "$rev" ]; then
		refuse "$id" -32004 "the tool catalog changed; describe the Tick again"
		return
	fi
	[[ $line =~ \"tool\":\"([^\"\\]*)\" ]] && tool=${BASH_REMATCH[1]}
	[[ $line =~ \"args\":(\{[^{}]*\}) ]] && args=${BASH_REMATCH[1]}
	case $tool in
	add)
		local text
		if ! text=$(jq -er 'select(type=="object" and (keys-["text"]|length)==0 and (.text|type)=="string") | .text' <<<"$args" 2>/dev/null); then
			refuse "$id" -32602 "add takes one string, text"
			return
		fi
		items=$(jq -c --arg t "$text" '. + [$t]' <<<"$items")
		printf '%s\n' "$items" >"$store.new" && mv "$store.new" "$store"
		seq=$((seq + 1))
		printf '{"jsonrpc":"2.0","method":"tick/update","params":%s}\n' "$(state)"
		answer "$id" '{"added":true}'
		;;
	list)
		if [ "$args" != '{}' ]; then
			refuse "$id" -32602 "list takes no args"
			return
		fi
		answer "$id" "{\"items\":$items}"
		;;
	search)
		if ! [[ $args =~ ^\{\"q\":\"([^\"\\]*)\"\}$ ]]; then
			refuse "$id" -32602 "search takes one string, q"
			return
		fi
		local q=${BASH_REMATCH[1]}
		[ "$variant" = queryfile ] && printf '%s\n' "$q" >>./.search-history
		answer "$id" "$(jq -c --arg q "$q" '{items:map(select(contains($q)))}' <<<"$items")"
		;;
	*) refuse "$id" -32602 "no such tool" ;;
	esac
}

while IFS= read -r line; do
	[[ $line =~ ^\{\"jsonrpc\":\"2\.0\",\"id\":([0-9]+),\"method\":\"([^\"\\]*)\" ]] || continue # dropped, never answered (3.2)
	id=${BASH_REMATCH[1]} method=${BASH_REMATCH[2]}
	case $method in
	tick/describe)
		[ "$variant" = describerev ] && rev=$((rev + 1)) # voids every call prepared before
		answer "$id" "${descriptor/REV/$rev}"
		;;
	tick/read) answer "$id" "$(state)" ;;
	tick/call) call "$id" "$line" ;;
	*) refuse "$id" -32601 "no such method" ;;
	esac
done
