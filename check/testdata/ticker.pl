#!/usr/bin/perl
# A Tick written in Perl from the draft alone (tick-protocol-3), with core modules only, in a
# style no other fixture here uses: one select loop over a hand-split stdin buffer, requests
# answered one at a time, JSON::PP with sorted keys and every non-ASCII character escaped as \u,
# seq starting at 7, and a catalog that moves on by itself: a second after start a "history" tool
# appears under a new revision (spec 5.5), as when a plugin loads. It checks args itself against
# the schemas it declares (spec 7.2), extra members included. check must pass it with no finding.
use strict;
use warnings;
use B ();
use IO::Select;
use JSON::PP;
use POSIX qw(strftime);
use Time::HiRes qw(time);

my $json = JSON::PP->new->canonical->ascii->allow_nonref;
binmode STDOUT;
$| = 1;    # each message leaves in one write

my $started = time;
my ($seq, $price, $revision) = (7, 100, 'r1');
my @alerts;

my %tools = (
    quote => {
        description  => 'Read the current price of the one symbol this ticker follows.',
        mutates      => JSON::PP::false,
        input_schema => {
            type                 => 'object',
            properties           => { symbol => { type => 'string' } },
            additionalProperties => JSON::PP::false,
        },
    },
    add_alert => {
        description  => 'Add a price alert; the state lists the alerts.',
        mutates      => JSON::PP::true,
        input_schema => {
            type                 => 'object',
            properties           => { price => { type => 'number' } },
            required             => ['price'],
            additionalProperties => JSON::PP::false,
        },
    },
    history => {    # from revision r2 on
        description  => 'Read every alert added so far, oldest first.',
        mutates      => JSON::PP::false,
        input_schema => { type => 'object', additionalProperties => JSON::PP::false },
    },
);

sub catalog {
    my @names = $revision eq 'r1' ? qw(quote add_alert) : qw(history quote add_alert);
    return [ map { { name => $_, %{ $tools{$_} } } } @names ];
}

sub send_line { print $json->encode({ jsonrpc => '2.0', %{ $_[0] } }), "\n" }

sub state {
    return {
        seq  => $seq,
        at   => strftime('%Y-%m-%dT%H:%M:%SZ', gmtime),
        data => { symbol => "\x{20ac}STX", price => $price, alerts => [@alerts] },
    };
}

# JSON::PP gives numbers numeric flags and strings string flags; that is how types are told apart.
sub is_number {
    my ($v) = @_;
    return 0 if !defined $v || ref $v;
    my $flags = B::svref_2object(\$v)->FLAGS;
    return ($flags & (B::SVp_IOK | B::SVp_NOK)) && !($flags & B::SVp_POK);
}

sub is_string {
    my ($v) = @_;
    return 0 if !defined $v || ref $v;
    return !is_number($v);
}

# args_fit checks args against the tool's schema as declared: an object, only declared members,
# required ones present, each of its type.
sub args_fit {
    my ($tool, $args) = @_;
    return 0 if ref $args ne 'HASH';
    my $schema = $tools{$tool}{input_schema};
    my $props  = $schema->{properties} || {};
    for my $name (keys %$args) {
        my $type = $props->{$name} ? $props->{$name}{type} : undef;
        return 0 if !defined $type;
        return 0 if $type eq 'string' && !is_string($args->{$name});
        return 0 if $type eq 'number' && !is_number($args->{$name});
    }
    for my $name (@{ $schema->{required} || [] }) {
        return 0 if !exists $args->{$name};
    }
    return 1;
}

sub call {
    my ($params) = @_;
    die { code => -32004, message => 'the tool catalog changed; describe the Tick again' }
      if !defined $params->{revision} || $params->{revision} ne $revision;
    my $tool = $params->{tool} // '';
    my %known = map { $_->{name} => 1 } @{ catalog() };
    die { code => -32602, message => "there is no tool \"$tool\"" } if !$known{$tool};
    die { code => -32602, message => "the args do not fit the input_schema of $tool" }
      if !args_fit($tool, $params->{args});
    if ($tool eq 'quote') {
        return { price => $price };
    }
    if ($tool eq 'history') {
        return { alerts => [@alerts] };
    }
    push @alerts, 0 + $params->{args}{price};
    $seq++;
    send_line({ method => 'tick/update', params => state() });
    return { alerts => scalar @alerts };
}

sub handle {
    my ($line) = @_;
    my $req = eval { $json->decode($line) };
    return if ref $req ne 'HASH' || !defined $req->{id} || ref $req->{id};    # drop it (spec 3.2)
    my ($method, $params) = ($req->{method} // '', $req->{params} || {});
    my $result = eval {
        return {
            protocol    => 3,
            kind        => 'example.ticker',
            title       => 'Ticker',
            description => 'Follows the price of one symbol and keeps price alerts.',
            revision    => $revision,
            tools       => catalog(),
        } if $method eq 'tick/describe';
        return state() if $method eq 'tick/read';
        return call($params) if $method eq 'tick/call';
        die { code => -32601, message => "unknown method $method" };
    };
    if (my $err = $@) {
        $err = { code => -32000, message => "$err" } if ref $err ne 'HASH';
        send_line({ id => $req->{id}, error => $err });
        return;
    }
    send_line({ id => $req->{id}, result => $result });
}

my $in     = IO::Select->new(\*STDIN);
my $buffer = '';
while (1) {
    $revision = 'r2' if $revision eq 'r1' && time - $started >= 1;    # the plugin has loaded
    next if !$in->can_read(0.05);
    my $n = sysread(STDIN, $buffer, 65536, length $buffer);
    last if !$n;                                                       # EOF: nothing in flight
    while ($buffer =~ s/\A([^\n]*)\n//) {
        handle($1) if length $1;
    }
}
exit 0;
