package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.fail;

import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Checks that a KVM test class leaves no domain and no volume behind: after the class, no domain
 * and no volume of the stack's pool may be named with one of the prefixes this module's KVM tests
 * use ({@link #PREFIXES}); an instance's volumes start with its entry's name, so they count when
 * the prefix follows the entry ({@link #volumesNamedWith}). What the check finds is listed,
 * removed (so the next class starts clean) and fails the class. The cached base images ({@code kvm}'s
 * {@code tiny.SOURCE.base.qcow2} with its {@code .complete} marker; {@code kvm2}'s
 * {@code kvm2-test+tiny.SOURCE.base.qcow2}, the conformance suite's other entry's
 * {@code kvm2-test-other+tiny.SOURCE.base.qcow2} and the real guest's {@code guest-e2e+...base.qcow2},
 * each with its {@code .sha256} marker; SOURCE is the tag of the image's URL) are meant to stay; the
 * remaining volumes are printed. A fetch lease ({@code BASE.lease}) exists only while a fetch runs;
 * one of a prefixed base counts as a leftover like the base, one of a kept base shows in that list.
 *
 * <p>Before the class, leftovers of an earlier, aborted run are removed and listed, so they are not
 * blamed on this one. Nested classes (the conformance suite's groups) are skipped: the top-level
 * class is checked once, after all of them.
 */
public final class NoKvmLeftovers implements BeforeAllCallback, AfterAllCallback {
    /** The conformance suite's instances ({@code egress-it-} plus the suite's {@code cf-TOKEN-...}). */
    static final String CONFORMANCE_PREFIX = "egress-it-cf-";
    /** What the fault tests make, image keys included (base volumes are named after the key). */
    static final String FAULT_PREFIX = "egress-it-fault-";
    /** The benchmarks' domains and volumes. */
    static final String BENCHMARK_PREFIX = "egress-it-bench-";
    /** What the crash-consistency tests make, kvm2 entry names included (base volumes start with them). */
    static final String CRASH_PREFIX = "egress-it-crash-";
    /**
     * What the real-guest end-to-end test makes: its instance (domain, overlay, seed). Its
     * entry's name has no such prefix on purpose, so the entry's base volume and marker (the
     * ~250 MB guest image) stay cached in the pool like {@code tiny.SOURCE.base.qcow2}.
     */
    static final String GUEST_PREFIX = "egress-it-guest-";
    /** Every prefix (each ending in '-') the KVM tests of this module name domains and volumes with. */
    static final List<String> PREFIXES =
            List.of(CONFORMANCE_PREFIX, FAULT_PREFIX, BENCHMARK_PREFIX, CRASH_PREFIX, GUEST_PREFIX);

    @Override
    public void beforeAll(ExtensionContext context) {
        if (isNested(context)) {
            return;
        }
        List<String> stale = removeAll(TestStack.load());
        if (!stale.isEmpty()) {
            System.out.println("[kvm leftovers] before " + context.getDisplayName()
                    + ": removed what an earlier run left: " + stale);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (isNested(context)) {
            return;
        }
        TestStack stack = TestStack.load();
        // Nothing can be checked through a frozen libvirtd; a failed test may have left it so.
        LibvirtdFreezer.thaw();
        List<String> leftovers = removeAll(stack);
        List<String> remaining = Virsh.volumes(stack.pool(), "");
        System.out.println("[kvm leftovers] after " + context.getDisplayName() + ": volumes left in pool "
                + stack.pool() + ": " + remaining + "; egress-it-* domains: " + Virsh.domains(TestStack.NAME_PREFIX));
        if (!leftovers.isEmpty()) {
            fail("%s left %d domains and volumes behind (removed now): %s", context.getDisplayName(),
                    leftovers.size(), leftovers);
        }
    }

    /** Removes every domain and volume named with one of the prefixes; returns what it found. */
    static List<String> removeAll(TestStack stack) {
        List<String> found = new ArrayList<>();
        for (String prefix : PREFIXES) {
            List<String> domains = Virsh.domains(prefix);
            if (!domains.isEmpty()) {
                domains.forEach(domain -> found.add("domain " + domain));
                // One virsh session for all (the benchmark's are hundreds); it removes PREFIX-*.
                Scripts.run(300, "undefine-domains.sh", prefix.substring(0, prefix.length() - 1));
            }
        }
        for (String prefix : PREFIXES) {
            for (String volume : volumesNamedWith(stack.pool(), prefix)) {
                found.add("volume " + volume);
                Virsh.run("vol-delete", "--pool", stack.pool(), volume);
            }
        }
        return found;
    }

    /**
     * The volumes of {@code pool} named with {@code prefix}: starting with it (an entry named so,
     * or a {@code kvm} base of an image key named so), or starting with it after the entry, as an
     * instance's overlay and seed do ({@code ENTRY+NAME.qcow2}, {@code ENTRY+NAME.seed.iso}).
     */
    static List<String> volumesNamedWith(String pool, String prefix) {
        return Virsh.volumes(pool, "").stream()
                .filter(volume -> volume.startsWith(prefix) || InstanceVolumes.withoutEntry(volume).startsWith(prefix))
                .toList();
    }

    private static boolean isNested(ExtensionContext context) {
        return context.getRequiredTestClass().isAnnotationPresent(Nested.class);
    }
}
