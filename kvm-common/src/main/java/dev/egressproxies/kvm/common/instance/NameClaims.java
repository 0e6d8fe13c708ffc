package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.StoragePool;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim on an instance name of an entry with several hosts: a {@link PoolLeases#CLAIM} volume
 * {@code ENTRY+NAME.claim} in the claims host's pool, so that processes on any machine create or
 * delete one name one at a time, and a name is one instance across the hosts. With one host there
 * is nothing to claim: libvirt keeps a domain name unique on its host.
 */
final class NameClaims {
    private static final Logger LOG = LoggerFactory.getLogger(NameClaims.class);
    private static final Duration FIRST_WAIT = Duration.ofMillis(100);
    private static final Duration LONGEST_WAIT = Duration.ofSeconds(2);
    /** Clock skew between machines that a claim's expiry allows for: the work under it ends this much before. */
    static final Duration SKEW = Duration.ofSeconds(30);

    private final EntrySettings settings;
    private final HostPool hosts;
    private final PoolLeases claims;

    NameClaims(EntrySettings settings, HostPool hosts) {
        this(settings, hosts, LeaseHolder.current(), Clock.systemUTC());
    }

    /** For tests that simulate several processes. */
    NameClaims(EntrySettings settings, HostPool hosts, LeaseHolder self, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.claims = new PoolLeases(PoolLeases.CLAIM, new BaseImageDiscard(hosts), self, clock);
    }

    /** {@code ENTRY+NAME.claim}: the volume of the name's claim. */
    static String volumeName(String entry, String name) {
        return entry + "+" + name + PoolLeases.CLAIM.suffix();
    }

    /**
     * Runs {@code work} holding the claim of {@code name}, in a call cut off before the claim can
     * expire; waits while another process holds it, up to the deadline. TRANSIENT, naming the
     * claims host, when the claim cannot be taken: nothing is done without it.
     */
    <T> T underClaim(String name, Call call, String what, Function<Call, T> work) {
        if (settings.hosts().size() == 1) {
            return work.apply(call);
        }
        HostSettings claimsHost = settings.claimsHostSettings();
        Duration held = settings.claimTimeout().compareTo(SKEW.multipliedBy(2)) > 0
                ? settings.claimTimeout().minus(SKEW) : settings.claimTimeout().dividedBy(2);
        Call bounded = call.withDeadline(call.deadline().within(held));
        return claims.exclusively(claimsHost, key(name), bounded, what, claim -> {
            claim.set(take(claimsHost, name, what, bounded));
            return work.apply(bounded);
        });
    }

    /**
     * Runs {@code work} on the claims host; a TRANSIENT failure there names the host and its role,
     * says {@code consequence}, and how to get going again.
     */
    static <T> T onClaimsHost(EntrySettings settings, HostPool hosts, Call call, String what, String consequence,
                              HostCall<T> work) {
        HostSettings claimsHost = settings.claimsHostSettings();
        try {
            return hosts.call(claimsHost, call, work);
        } catch (ProviderException failure) {
            if (failure.kind() != ErrorKind.TRANSIENT || Thread.currentThread().isInterrupted()) {
                throw failure;
            }
            throw call.transientFailure("cannot " + what + " on host '" + claimsHost.name() + "', the claims host of"
                    + " provider entry '" + settings.entry() + "' (" + failure.detail() + "): " + consequence
                    + ". Retry when host '" + claimsHost.name() + "' answers, or make another host the claims host"
                    + " (claimsHost)", failure);
        }
    }

    /**
     * For {@code check}: the name claims in the claims host's pool, stale ones with what removes
     * them, and the cordoned hosts. Warnings only; nothing changes.
     */
    List<PreflightCheck> preflight(HostCordons cordons, Call call) {
        if (settings.hosts().size() == 1) {
            return List.of();
        }
        HostSettings claimsHost = settings.claimsHostSettings();
        String where = " on claims host " + claimsHost.name();
        try {
            return hosts.call(claimsHost, call, libvirt -> {
                StoragePool pool = Pools.require(libvirt, claimsHost, call);
                String prefix = settings.entry() + "+";
                List<String> found = new ArrayList<>();
                for (String name : LibvirtSteps.step("listing the volumes of storage pool " + claimsHost.pool(),
                        () -> libvirt.listVolumeNames(pool))) {
                    if (!name.startsWith(prefix) || !name.endsWith(PoolLeases.CLAIM.suffix())) {
                        continue;
                    }
                    Optional<PoolLease> lease = PoolLeases.readLease(libvirt, pool, name);
                    Optional<String> stale = lease.flatMap(claims::staleness);
                    found.add(lease.isEmpty() ? name + " holds no whole claim (being taken right now, or left empty"
                            + " by a crash; the next create or delete of its name takes it over)"
                            : stale.map(why -> name + " of " + lease.get().holder().describe() + " is stale (" + why
                                    + "); the next create or delete of its name takes it over")
                            .orElse(name + " is held by " + lease.get().holder().describe() + " until "
                                    + lease.get().expires()));
                }
                Map<String, String> cordoned = new LinkedHashMap<>();
                for (HostSettings host : settings.hosts()) {
                    cordons.cordon(libvirt, pool, host).ifPresent(by -> cordoned.put(host.name(), by));
                }
                PreflightCheck claimsCheck = found.isEmpty() ? PreflightCheck.passed("name claims" + where, "none held")
                        : PreflightCheck.warning("name claims" + where, String.join("; ", found));
                PreflightCheck cordonsCheck = cordoned.isEmpty() ? PreflightCheck.passed("cordoned hosts", "none")
                        : PreflightCheck.warning("cordoned hosts", cordoned.entrySet().stream()
                                .map(host -> host.getKey() + (host.getValue().isEmpty() ? "" : " (" + host.getValue()
                                        + ")")).collect(Collectors.joining(", ")) + ": no new proxy lands there;"
                                + " 'egressctl uncordon " + settings.entry() + "/HOST' lifts a cordon");
                return List.of(claimsCheck, cordonsCheck);
            });
        } catch (ProviderException failure) {
            return List.of(PreflightCheck.failed("name claims" + where, "cannot be read (" + failure.detail()
                    + "): no create or delete of this entry can take a name claim until host '" + claimsHost.name()
                    + "' answers, or another host is made the claims host (claimsHost)"));
        }
    }

    private String key(String name) {
        return settings.entry() + "+" + name;
    }

    private PoolLeases.Held take(HostSettings claimsHost, String name, String what, Call call) {
        Duration wait = FIRST_WAIT;
        boolean told = false;
        while (true) {
            PoolLeases.Attempt attempt = onClaimsHost(settings, hosts, call, "take the name claim of '" + name + "'",
                    "a name is created or deleted only under its claim, so nothing was changed",
                    libvirt -> claims.attempt(libvirt, Pools.require(libvirt, claimsHost, call), claimsHost,
                            key(name), what, call));
            if (attempt.took()) {
                return attempt.held();
            }
            PoolLease holder = attempt.holder();
            if (call.deadline().remaining().compareTo(wait) <= 0) {
                throw call.transientFailure("another process (" + holder.holder().describe() + ") holds the name"
                        + " claim " + volumeName(settings.entry(), name) + " on host '" + claimsHost.name()
                        + "' until " + holder.expires() + ", and this call's deadline came first; retry: once it is"
                        + " released, the name's instance is there or gone", null);
            }
            if (!told) {
                LOG.info("waiting for the name claim {} on host {}, held by {} until {}",
                        volumeName(settings.entry(), name), claimsHost.name(), holder.holder().describe(),
                        holder.expires());
                told = true;
            }
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException interrupted) {
                throw call.interrupted(interrupted);
            }
            wait = wait.multipliedBy(2).compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : wait.multipliedBy(2);
        }
    }
}
