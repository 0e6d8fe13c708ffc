package dev.egressproxies.integration.kvm;

import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.conformance.ConformanceHarness;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The conformance hooks of the {@code kvm} backend on the test stack, done behind the provider's
 * back with the machine's own tools, on the libvirtd of the zone's (or ID's) host
 * ({@link StackHypervisors}):
 * <ul>
 *   <li>plant: {@code virsh define} of a small stopped domain without the platform's metadata;
 *   <li>stop: {@code virsh destroy}, as a host crash or an operator would;
 *   <li>hang: SIGSTOP to the machine's libvirtd ({@link LibvirtdFreezer}), which hangs every
 *       operation on the first host;
 *   <li>unreadable zone: {@code test-stack.sh kill-sshd [second]}, which makes that host
 *       unreachable;
 *   <li>another entry: a provider its target builds from the same configuration under another
 *       entry name.
 * </ul>
 * {@link #restore()} thaws libvirtd first (always, whatever was hooked), starts sshd again when
 * it was killed, and undefines the planted domains.
 */
final class KvmHarness implements ConformanceHarness {
    private final TestStack stack;
    private final Supplier<Entry> anotherEntry;
    /** Planted domains as provider IDs, {@code HOST/NAME}. */
    private final List<String> planted = new ArrayList<>();
    private boolean frozen;
    private boolean sshdKilled;

    KvmHarness(TestStack stack, Supplier<Entry> anotherEntry) {
        this.stack = stack;
        this.anotherEntry = anotherEntry;
    }

    @Override
    public Entry anotherEntry() {
        return anotherEntry.get();
    }

    @Override
    public String plantUnmanaged(Placement placement, String name) {
        String host = hostOf(placement.zone());
        String id = host + "/" + name;
        Path xml = writeDomainXml(name);
        try {
            planted.add(id);
            StackHypervisors.virsh(stack, host).virsh("define", xml.toString());
        } finally {
            deleteQuietly(xml);
        }
        return id;
    }

    @Override
    public void stop(String id) {
        StackHypervisors.virsh(stack, StackHypervisors.hostOf(id)).virsh("destroy", StackHypervisors.nameOf(id));
    }

    @Override
    public void hang(Operation operation) {
        frozen = true;
        LibvirtdFreezer.freeze();
    }

    @Override
    public void makeZoneUnreadable(String zone) {
        String host = hostOf(zone);
        sshdKilled = true;
        StackSshd.kill(host);
    }

    @Override
    public void restore() {
        // Unconditionally: a hang whose bookkeeping failed halfway must not leave libvirtd stopped.
        LibvirtdFreezer.thaw();
        frozen = false;
        if (sshdKilled) {
            StackSshd.revive();
            sshdKilled = false;
        }
        for (String id : List.copyOf(planted)) {
            Virsh virsh = StackHypervisors.virsh(stack, StackHypervisors.hostOf(id));
            String name = StackHypervisors.nameOf(id);
            if (virsh.domainsNamed(name).contains(name)) {
                virsh.virsh("undefine", name, "--managed-save", "--snapshots-metadata", "--nvram");
            }
            planted.remove(id);
        }
    }

    @Override
    public String toString() {
        return "KvmHarness[frozen=" + frozen + ", sshdKilled=" + sshdKilled + ", planted=" + planted + "]";
    }

    /** The host a zone names; the empty zone is the first host, as with an entry of one host. */
    private static String hostOf(String zone) {
        return zone.isEmpty() ? KvmTestConfig.HOST : zone;
    }

    /** A stopped domain like the backend's, but without the platform's metadata element. */
    private Path writeDomainXml(String name) {
        String xml = """
                <domain type='%s'>
                  <name>%s</name>
                  <memory unit='MiB'>64</memory>
                  <vcpu>1</vcpu>
                  <os><type arch='x86_64' machine='pc'>hvm</type><boot dev='hd'/></os>
                  <devices>
                    <interface type='bridge'>
                      <source bridge='%s'/>
                      <model type='virtio'/>
                    </interface>
                  </devices>
                </domain>
                """.formatted(stack.value("EGRESS_TEST_DOMAIN_TYPE"), name, stack.bridge());
        try {
            Path file = Files.createTempFile("egress-it-planted", ".xml");
            Files.writeString(file, xml);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // A temporary file; the system cleans it.
        }
    }
}
