package dev.egressproxies.integration.kvm;

import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.kvm2.Kvm2Provider;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite run against the {@code kvm2} backend on the real stack: built through the
 * registry from the YAML an operator would write ({@link KvmTestConfig#kvm2()}, entry
 * {@value KvmTestConfig#KVM2_ENTRY}, the stack's image pinned by its sha256 and booted with BIOS),
 * reaching the real libvirtd through the real sshd on 127.0.0.1.
 *
 * <p>{@code kvm2} keeps its instances as {@code kvm} does (domains of the one libvirtd, IDs
 * {@code host/name}), so it declares the same capabilities, lacking the same ones for the same
 * reasons: see {@link KvmConformanceTargets}. Its image cache adds nothing the suite could tell
 * apart: the entry's base volume and sha256 marker ({@code kvm2-test+tiny.SOURCE.base.qcow2} and
 * {@code .sha256}) stay in the pool between runs, as an operator's would, and
 * {@link NoKvmLeftovers} checks that no domain, overlay or seed of the suite's instances is left.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2ProviderConformanceTest extends ProviderConformanceTest {

    @TempDir
    Path stateDirectory;

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        return KvmConformanceTargets.onTestStack(KvmTestConfig::kvm2, Kvm2Provider.class, stateDirectory,
                "not-a-kvm2-id");
    }
}
