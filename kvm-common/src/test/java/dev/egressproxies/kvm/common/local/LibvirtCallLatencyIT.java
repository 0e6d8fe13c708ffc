package dev.egressproxies.kvm.common.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.instance.HostPool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.libvirt.LibvirtJavaHost;
import dev.egressproxies.kvm.common.teststack.Leftovers;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.xml.DomainDefinition;
import dev.egressproxies.kvm.common.xml.DomainXml;
import dev.egressproxies.kvm.common.xml.HostPlatform;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Measures what one state or metadata read costs against the local libvirtd, directly and through
 * the pool, so the listManaged benchmark over 500 domains can be estimated. Prints its figures;
 * asserts only that the calls work.
 */
@Timeout(300)
class LibvirtCallLatencyIT {
    private static final TestStack STACK = TestStack.load();
    private static final HostSettings LOCAL = new HostSettings("local", "localhost", 22, "root",
            STACK.libvirtSocket().toString(), null, "br0", null, null, null, null, null);
    private static final int WARM_UP_CALLS = 300;
    private static final int MEASURED_CALLS = 3000;

    private static final Leftovers LEFTOVERS = new Leftovers();
    private static LibvirtJavaHost direct;
    private static String domainName;

    @BeforeAll
    static void defineADomain() {
        direct = LibvirtJavaHost.connect("qemu:///system");
        domainName = LEFTOVERS.domain(TestStack.uniqueName("latency"));
        // Never started, so its disk paths need not exist.
        direct.defineDomain(DomainXml.of(new DomainDefinition(domainName, 64, 1,
                HostPlatform.defaultsFor(STACK.domainType()), false, "/nonexistent/disk.qcow2",
                "/nonexistent/seed.iso", STACK.bridge(), new InstanceMetadata("uid", Instant.now(), "latency-it"))));
    }

    @AfterAll
    static void removeTheDomain() {
        LEFTOVERS.removeAll(direct, STACK.pool());
        direct.close();
    }

    @Test
    void measuresStateAndMetadataReads() {
        Domain domain = direct.lookupDomain(domainName).orElseThrow();
        report("direct qemu:///system, getState", direct, libvirt -> libvirt.domainState(domain));
        report("direct qemu:///system, getMetadata", direct,
                libvirt -> libvirt.domainMetadata(domain, InstanceMetadata.NAMESPACE));

        try (HostPool connections = new HostPool(new LocalSocketDialer())) {
            Call deadline = new Call("latency", Operation.GET, "", Deadline.after(Duration.ofMinutes(2)));
            connections.call(LOCAL, deadline, libvirt -> {
                Domain relayed = libvirt.lookupDomain(domainName).orElseThrow();
                report("through the relay, in one host call, getState", libvirt, l -> l.domainState(relayed));
                report("through the relay, in one host call, getMetadata", libvirt,
                        l -> l.domainMetadata(relayed, InstanceMetadata.NAMESPACE));
                report("through the relay, in one host call, lookup + getState + getMetadata", libvirt, l -> {
                    Domain found = l.lookupDomain(domainName).orElseThrow();
                    l.domainState(found);
                    l.domainMetadata(found, InstanceMetadata.NAMESPACE);
                });
                return null;
            });
            report("through the pool, one host call per getState", null, ignored -> connections.call(LOCAL, deadline,
                    libvirt -> libvirt.domainState(libvirt.lookupDomain(domainName).orElseThrow())));
            report("through the pool, one host call doing nothing (worker hand-off only)", null,
                    ignored -> connections.call(LOCAL, deadline, libvirt -> null));
        }
        assertThat(direct.lookupDomain(domainName)).isPresent();
    }

    private static void report(String what, LibvirtHost libvirt, Consumer<LibvirtHost> call) {
        for (int index = 0; index < WARM_UP_CALLS; index++) {
            call.accept(libvirt);
        }
        long started = System.nanoTime();
        for (int index = 0; index < MEASURED_CALLS; index++) {
            call.accept(libvirt);
        }
        double microseconds = (System.nanoTime() - started) / 1_000.0 / MEASURED_CALLS;
        System.out.printf("latency: %-75s %8.1f us per call (%d calls)%n", what, microseconds, MEASURED_CALLS);
    }
}
