package dev.egressproxies.integration.kvm;

import dev.egressproxies.conformance.ConformanceTarget;
import dev.egressproxies.conformance.ProviderConformanceTest;
import dev.egressproxies.kvm.KvmProvider;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite run against the {@code kvm} backend on the real stack: built through the
 * registry from the YAML an operator would write ({@link KvmTestConfig}), reaching the real
 * libvirtd through the real sshd on 127.0.0.1. The capabilities it declares, and why the others
 * are lacking, are those of every KVM backend on the stack: see {@link KvmConformanceTargets}.
 *
 * <p>{@link NoKvmLeftovers} checks that the run left no domain or volume of its instances.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class KvmProviderConformanceTest extends ProviderConformanceTest {

    @TempDir
    Path stateDirectory;

    @Override
    protected ConformanceTarget createTarget() throws Exception {
        return KvmConformanceTargets.onTestStack(KvmTestConfig::standard, KvmProvider.class, stateDirectory,
                "not-a-kvm-id");
    }
}
