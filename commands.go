package main

import (
	"slices"

	"tickmux/agent"
)

// mainCommands lists every tickmux subcommand, in the order `tickmux help` prints them. Commands
// with logic of their own live in cmd_NAME.go; the control-socket clients (ls, open, call…) are
// agent.Verbs whose logic is in agent/cli.go.
func mainCommands() []*command {
	return []*command{
		{name: "attach", usage: "attach [-t NAME] [--socket PATH] [--config PATH]", aliases: []string{"attach-session"},
			summary: "show the running tickmux (-t: the session NAME) in this terminal (prefix d detaches)", run: runAttach},
		verb(agent.Call),
		{name: "check", usage: "check [--json] [--watch D] [--call-timeout D] [--cwd DIR] -- CMD [ARG...]",
			summary: "judge a Tick against Tick protocol 3", run: runCheck},
		verb(agent.Close),
		{name: "demo", usage: "demo [--socket PATH] [--log PATH] [--config PATH]",
			summary: "open the bundled example Ticks in a ready layout", run: runDemo},
		verb(agent.Describe),
		{name: "doctor", usage: "doctor [--json]",
			summary: "what this machine lets a program in a pane do against the cards, and what tickmux does about it", run: runDoctor},
		verb(agent.HookVerb),
		{name: "hosts", usage: "hosts [ls | add NAME DEST | rm NAME] [--config PATH]",
			summary: "the other machines whose cards and Ticks this tickmux shows ([[hosts]]): list, add or remove one", run: runHosts},
		{name: "kill-server", usage: "kill-server [-t NAME] [--socket PATH]",
			summary: "end the running tickmux (-t: the session NAME) and every program in it", run: runKillServer},
		{name: "log", usage: "log [--json] [-n N] [--since D] [--dir DIR] [ID]",
			summary: "the approval journal: who allowed what, and what each call changed", run: runLog},
		verb(agent.Ls),
		verb(agent.MCPVerb),
		{name: "new", usage: "new [-d] [-s NAME] [--socket PATH] [--log PATH] [--config PATH] [--sandbox] [--plain] [-- CMD [ARG...]]", aliases: []string{"new-session"},
			summary: "start a new session, a server of its own named NAME, and show it here (-d: not shown)", run: runNew},
		verb(agent.Open),
		verb(agent.Read),
		{name: "reload", usage: "reload [--socket PATH] [-t NAME] [--config PATH] [--log PATH]",
			summary: "have the running tickmux read its config file again (tmux's source-file)", run: runReload},
		{name: "restore", usage: "restore [--socket PATH] [--config PATH] [--log PATH] [--list] [N]",
			summary: "bring back the session a crash or a reboot ended (--list: the snapshots kept; N: an older one)", run: runRestore},
		verb(agent.Screen),
		verb(agent.Send),
		{name: "sessions", usage: "sessions [--json] [--socket PATH]", aliases: []string{"list-sessions"},
			summary: "list the running sessions: name, panes, views attached, since when (also: list-sessions)", run: runSessions},
		{name: "setup", usage: "setup claude-code|codex [--write]",
			summary: "print (or --write) the settings that make the agent ask through tickmux's cards", run: runSetup},
		{name: "snap", usage: "snap [--size COLSxROWS] [--settle D] [--resize COLSxROWS,...] [--ansi] -- CMD [ARG...]",
			summary: "run a program on a terminal and print its final screen", run: runSnap},
		verb(agent.Wait),

		// Listed apart in the help: started by tickmux itself, or by tests and scripts.
		{name: "example", usage: "example [NAME [ARGS]]",
			summary: "run an example Tick built into tickmux; alone, list them", hidden: true, run: runExample},
		{name: "proxy", usage: "proxy [--socket PATH]",
			summary: "let a tickmux on another machine show this host's cards and answer them (it runs this over ssh)", hidden: true, run: runProxy},
		{name: agent.ServeVerb.Name, usage: agent.ServeVerb.Usage, summary: agent.ServeVerb.Summary,
			hidden: true, run: runServe},
		{name: "server", usage: "server [--socket PATH] [--log PATH] [--config PATH] [--demo] [--sandbox] [--plain] [--size COLSxROWS] [--restore NAME] [-- CMD [ARG...]]",
			summary: "the tickmux server that views attach to (started for you)", hidden: true, run: runServer},
	}
}

// verb makes a command of a control-socket client verb.
func verb(v agent.Verb) *command {
	return &command{name: v.Name, usage: v.Usage, summary: v.Summary, verb: true,
		run: func(args []string, std stdio) int { return v.Run(args, std.in, std.out, std.err) }}
}

// lookup finds the subcommand called name, or known by name as an alias.
func lookup(name string) (*command, bool) {
	for _, c := range mainCommands() {
		if c.name == name || slices.Contains(c.aliases, name) {
			return c, true
		}
	}
	return nil, false
}
