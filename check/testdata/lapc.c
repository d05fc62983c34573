/* A Tick in C, written from the draft (tick-protocol-3) alone, with the C library only: a lap
 * counter. The host encodes its requests compactly, so this Tick finds members by their quoted
 * names and reads only the values it needs; anything else is ignored (4.3). One request at a time.
 * LAPC_VARIANT picks what its author decided to get wrong:
 *   good       conforms: check finds nothing
 *   stale      runs calls whatever their revision (7.2 MUST: C-K1 and C-K4 failures)
 *   bigstate   a 40 KiB state (6.4, illustrative advice: a C-S1 note, still ok)
 *   wrongcode  answers an unknown method with -32600, not -32601 (C-M2 warning, still ok)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *variant = "good";
static long seq = 0, laps = 0;

/* value returns where the value of member name starts in s, or NULL. */
static const char *value(const char *s, const char *name) {
	char key[64];
	snprintf(key, sizeof key, "\"%s\":", name);
	const char *p = strstr(s, key);
	return p ? p + strlen(key) : NULL;
}

/* string copies the JSON string at p (no escapes expected in names) into out. */
static int string(const char *p, char *out, size_t n) {
	if (!p || *p != '"')
		return 0;
	size_t i = 0;
	for (p++; *p && *p != '"' && i + 1 < n; p++) {
		if (*p == '\\')
			return 0;
		out[i++] = *p;
	}
	out[i] = 0;
	return *p == '"';
}

/* object copies the JSON object at p into out (braces balanced, strings skipped). */
static int object(const char *p, char *out, size_t n) {
	if (!p || *p != '{')
		return 0;
	int depth = 0, in = 0;
	size_t i = 0;
	for (; *p && i + 1 < n; p++) {
		out[i++] = *p;
		if (in) {
			if (*p == '\\' && p[1])
				out[i++] = *++p;
			else if (*p == '"')
				in = 0;
		} else if (*p == '"')
			in = 1;
		else if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0) {
			out[i] = 0;
			return 1;
		}
	}
	return 0;
}

static void state(char *out, size_t n) {
	if (strcmp(variant, "bigstate") == 0) {
		int k = snprintf(out, n, "{\"seq\":%ld,\"data\":{\"laps\":%ld,\"log\":\"", seq, laps);
		memset(out + k, 'x', 40 << 10);
		snprintf(out + k + (40 << 10), n - k - (40 << 10), "\"}}");
		return;
	}
	snprintf(out, n, "{\"seq\":%ld,\"data\":{\"laps\":%ld}}", seq, laps);
}

static void result(long id, const char *r) { printf("{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":%s}\n", id, r); fflush(stdout); }
static void error(long id, int code, const char *m) {
	printf("{\"jsonrpc\":\"2.0\",\"id\":%ld,\"error\":{\"code\":%d,\"message\":\"%s\"}}\n", id, code, m);
	fflush(stdout);
}

static void call(long id, const char *params) {
	char tool[64], rev[64], args[256];
	if (!string(value(params, "revision"), rev, sizeof rev) || (strcmp(rev, "1") != 0 && strcmp(variant, "stale") != 0)) {
		error(id, -32004, "the tool catalog changed; describe the Tick again");
		return;
	}
	if (!string(value(params, "tool"), tool, sizeof tool) || !object(value(params, "args"), args, sizeof args)) {
		error(id, -32602, "tool and args are required");
		return;
	}
	if (strcmp(tool, "laps") == 0) {
		if (strcmp(args, "{}") != 0) {
			error(id, -32602, "laps takes no args");
			return;
		}
		char r[64];
		snprintf(r, sizeof r, "{\"laps\":%ld}", laps);
		result(id, r);
		return;
	}
	if (strcmp(tool, "lap") == 0) {
		if (strcmp(args, "{}") != 0) {
			error(id, -32602, "lap takes no args");
			return;
		}
		laps++, seq++;
		static char st[(40 << 10) + 256];
		state(st, sizeof st);
		printf("{\"jsonrpc\":\"2.0\",\"method\":\"tick/update\",\"params\":%s}\n", st);
		result(id, "{}");
		return;
	}
	error(id, -32602, "no such tool");
}

int main(void) {
	if (getenv("LAPC_VARIANT"))
		variant = getenv("LAPC_VARIANT");
	static char line[1 << 20], st[(40 << 10) + 256], params[1 << 16];
	while (fgets(line, sizeof line, stdin)) {
		const char *idp = value(line, "id");
		char method[64];
		if (!idp || *idp < '0' || *idp > '9' || !string(value(line, "method"), method, sizeof method))
			continue; /* not a request: dropped, never answered (3.2) */
		long id = strtol(idp, NULL, 10);
		if (strcmp(method, "tick/describe") == 0)
			result(id, "{\"protocol\":3,\"kind\":\"example.lapc\",\"title\":\"Laps (C)\","
			           "\"description\":\"Counts laps; a person or an agent adds one.\",\"revision\":\"1\",\"tools\":["
			           "{\"name\":\"lap\",\"description\":\"Count one more lap.\",\"mutates\":true,"
			           "\"input_schema\":{\"type\":\"object\",\"additionalProperties\":false}},"
			           "{\"name\":\"laps\",\"description\":\"Read how many laps were counted.\",\"mutates\":false,"
			           "\"input_schema\":{\"type\":\"object\",\"additionalProperties\":false}}]}");
		else if (strcmp(method, "tick/read") == 0) {
			state(st, sizeof st);
			result(id, st);
		} else if (strcmp(method, "tick/call") == 0 && object(value(line, "params"), params, sizeof params))
			call(id, params);
		else if (strcmp(method, "tick/call") == 0)
			error(id, -32602, "params are required");
		else
			error(id, strcmp(variant, "wrongcode") == 0 ? -32600 : -32601, "no such method");
	}
	return 0;
}
