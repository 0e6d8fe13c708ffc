package dev.egressproxies.kvm.common.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * The fake hypervisors of a backend test, {@code host-1}, {@code host-2}, ..., each with one
 * running, empty storage pool, reached through a {@link FakeLinkDialer}.
 */
public final class FakeHostFleet {
    private final List<FakeLibvirtHost> hosts = new ArrayList<>();
    private final FakeLinkDialer dialer = new FakeLinkDialer();

    /** {@code count} hosts, each with the pool {@code pool}. */
    public FakeHostFleet(int count, String pool) {
        for (int number = 1; number <= count; number++) {
            FakeLibvirtHost host = new FakeLibvirtHost(name(number)).withPool(pool);
            hosts.add(host);
            dialer.with(host);
        }
    }

    /** The name of the host with that number, counted from 1. */
    public static String name(int number) {
        return "host-" + number;
    }

    /** The hosts, in order. */
    public List<FakeLibvirtHost> hosts() {
        return List.copyOf(hosts);
    }

    /** The first host. */
    public FakeLibvirtHost first() {
        return hosts.get(0);
    }

    /** The dialer that reaches the hosts by name. */
    public FakeLinkDialer dialer() {
        return dialer;
    }
}
