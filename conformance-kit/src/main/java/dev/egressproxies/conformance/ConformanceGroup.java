package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.fail;

import dev.egressproxies.api.Provider;
import dev.egressproxies.api.conformance.Capability;
import java.util.function.Supplier;
import org.junit.jupiter.api.function.Executable;

/**
 * The base of the suite's groups of cases (one group per operation or concern): gives each case
 * the current test's {@link ConformanceSession} and the means to branch on a capability.
 *
 * <p>Groups are plain abstract classes so each stays in a file of its own;
 * {@link ProviderConformanceTest} binds them in as nested test classes.
 */
abstract class ConformanceGroup {
    private final Supplier<ConformanceSession> session;

    ConformanceGroup(Supplier<ConformanceSession> session) {
        this.session = session;
    }

    final ConformanceSession session() {
        return session.get();
    }

    final ConformanceTarget target() {
        return session().target();
    }

    final Provider provider() {
        return target().provider();
    }

    final InstanceNames names() {
        return session().names();
    }

    final String entry() {
        return target().entryName();
    }

    /**
     * Runs {@code whenPresent} when the target has the capability, and otherwise
     * {@code whenLacking}, which asserts what the declared lack implies; neither path skips.
     */
    final void dependingOn(Capability capability, Executable whenPresent, Executable whenLacking) throws Throwable {
        if (target().has(capability)) {
            whenPresent.execute();
        } else {
            whenLacking.execute();
        }
    }

    /**
     * Runs {@code whenPresent} when the target has the hook capability, and otherwise asserts that
     * the harness refuses the hook, as the missing declaration says it does.
     *
     * @param hookProbe a call of the hook with harmless arguments
     */
    final void withHook(Capability capability, Executable whenPresent, Executable hookProbe) throws Throwable {
        dependingOn(capability, whenPresent, () -> assertHookRefused(capability, hookProbe));
    }

    private static void assertHookRefused(Capability capability, Executable hookProbe) throws Throwable {
        try {
            hookProbe.execute();
        } catch (UnsupportedOperationException expected) {
            return;
        }
        fail("the harness implements the hook behind %s, but the target does not declare it:"
                + " declare it so the suite runs these cases", capability);
    }
}
