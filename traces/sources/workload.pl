# A small perl workload for `mmtrace record` (rec-perl): a hash of arrays built,
# sorted, joined and partly deleted.  Deterministic (no rand, no clock).
use strict;
use warnings;

my %h;
for my $i (1 .. 6000) {
    my $key = join("", map { chr(97 + ($i * $_) % 26) } 1 .. (3 + $i % 9));
    push @{ $h{$key} }, ($i) x (1 + $i % 7);
}
my $n = 0;
for my $k (sort { scalar(@{ $h{$a} }) <=> scalar(@{ $h{$b} }) or $a cmp $b } keys %h) {
    my $s = join(",", @{ $h{$k} });
    $n += length($s);
    delete $h{$k} if $n % 3 == 0;
}
print "$n\n";
