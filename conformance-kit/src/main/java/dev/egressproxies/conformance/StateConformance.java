package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.conformance.Capability;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The conformance cases of the instance life cycle: an instance boots to RUNNING with an address
 * (or, lacking {@link Capability#REACHES_RUNNING}, stays PROVISIONING without one), RUNNING
 * always comes with an address, and a stopped instance is reported STOPPED.
 */
abstract class StateConformance extends ConformanceGroup {
    /** An IPv4 or IPv6 literal; checked by form so that no name lookup ever happens. */
    private static final Pattern IP_LITERAL = Pattern.compile(
            "((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

    StateConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void reachesRunningWithAnAddressOrStaysProvisioningWithout() throws Throwable {
        String id = session().create("boot");
        dependingOn(Capability.REACHES_RUNNING, () -> {
            Instance running = session().awaitInstance(id, instance -> instance.state() == InstanceState.RUNNING,
                    "RUNNING");

            assertThat(running.ip()).matches(IP_LITERAL);
        }, () -> session().observe(id, target().stateTimeout(), instance -> {
            assertThat(instance.state()).as("state of %s, which never reaches RUNNING", id)
                    .isEqualTo(InstanceState.PROVISIONING);
            assertThat(instance.ip()).as("address of %s while PROVISIONING", id).isEmpty();
        }));
    }

    @Test
    void runningImpliesANonEmptyAddressInEveryObservation() {
        String id = session().create("watched");
        long end = System.nanoTime() + target().stateTimeout().toNanos();
        boolean running = false;
        // Watch both get and listManaged while the instance boots, until it runs or time is up.
        while (!running && System.nanoTime() - end < 0) {
            Instance fromGet = session().get(id);
            assertConsistent(fromGet);
            session().listed(id).ifPresent(StateConformance::assertConsistent);
            running = fromGet.state() == InstanceState.RUNNING;
            session().pause();
        }
    }

    @Test
    void stoppedInstanceIsReportedStopped() throws Throwable {
        withHook(Capability.STOPS_INSTANCES, () -> {
            String id = session().create("halted");

            session().stop(id);

            session().awaitInstance(id, instance -> instance.state() == InstanceState.STOPPED, "STOPPED");
            assertThat(session().listed(id)).as("a stopped instance is still managed")
                    .hasValueSatisfying(listed -> assertThat(listed.state()).isEqualTo(InstanceState.STOPPED));
        }, () -> target().harness().stop(target().unknownId()));
    }

    @Test
    void listManagedAgreesWithGetOnceSettled() throws Throwable {
        String id = session().create("settled");
        dependingOn(Capability.REACHES_RUNNING, () -> {
            Instance running = session().awaitInstance(id, instance -> instance.state() == InstanceState.RUNNING,
                    "RUNNING");

            assertThat(session().listed(id)).hasValueSatisfying(listed -> {
                assertThat(listed.state()).isEqualTo(InstanceState.RUNNING);
                assertThat(listed.ip()).isEqualTo(running.ip());
            });
        }, () -> assertThat(session().listed(id)).hasValueSatisfying(listed -> {
            assertThat(listed.state()).isEqualTo(InstanceState.PROVISIONING);
            assertThat(listed.ip()).isEmpty();
        }));
    }

    private static void assertConsistent(Instance instance) {
        assertThat(instance.state()).as("state of %s while booting", instance.id()).isNotEqualTo(InstanceState.STOPPED);
        if (instance.state() == InstanceState.RUNNING) {
            assertThat(instance.ip()).as("address of RUNNING %s", instance.id()).isNotEmpty().matches(IP_LITERAL);
        }
        if (!instance.ip().isEmpty()) {
            assertThat(instance.ip()).as("address of %s", instance.id()).matches(IP_LITERAL);
        }
    }
}
