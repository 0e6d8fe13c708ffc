package dev.egressproxies.kvm;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestProviderContext;
import dev.egressproxies.kvm.config.KvmConfig;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plugin entry point: its type, its registrations, and the providers it builds. */
class KvmProviderFactoryTest {

    @Test
    void theTypeIsKvmAndTheConfigurationIsKvmConfig() {
        KvmProviderFactory factory = new KvmProviderFactory();

        assertThat(factory.type()).isEqualTo("kvm");
        assertThat(factory.configType()).isEqualTo(KvmConfig.class);
    }

    @Test
    void theFactoryIsRegisteredForTheModulePathAndTheClassPath() throws IOException {
        ModuleDescriptor descriptor = KvmProviderFactory.class.getModule().getDescriptor();
        assertThat(descriptor).as("tests run on the module path").isNotNull();
        assertThat(descriptor.provides()).anySatisfy(provides -> {
            assertThat(provides.service()).isEqualTo(ProviderFactory.class.getName());
            assertThat(provides.providers()).containsExactly(KvmProviderFactory.class.getName());
        });
        assertThat(descriptor.opens()).anySatisfy(opens -> {
            assertThat(opens.source()).isEqualTo("dev.egressproxies.kvm.config");
            assertThat(opens.isQualified()).as("opened to everyone, not to a binding library").isFalse();
        });
        try (InputStream services = KvmProviderFactory.class.getModule()
                .getResourceAsStream("META-INF/services/" + ProviderFactory.class.getName())) {
            assertThat(new String(services.readAllBytes(), StandardCharsets.UTF_8).trim())
                    .isEqualTo(KvmProviderFactory.class.getName());
        }
    }

    @Test
    void theProviderReachesItsHostsThroughTheDialerTheSeamMakes() throws InterruptedException {
        try (KvmFixture fixture = KvmFixture.oneHost()) {
            fixture.cacheBaseImage();
            KvmProviderFactory factory = new KvmProviderFactory((entry, config, context) -> fixture.connections);

            try (KvmProvider provider = factory.create("kvm-b", fixture.config, fixture.context)) {
                assertThat(provider.create(KvmFixture.request("proxy-1"), Requests.deadline()))
                        .isEqualTo("host-1/proxy-1");
            }

            assertThat(fixture.connections.awaitAllClosed()).as("closing the provider closes its connections").isTrue();
        }
    }

    @Test
    void anEntryWithoutSettingsIsAConfigurationError() {
        ProviderException error = catchProviderException(() -> new KvmProviderFactory().create("kvm-b", null,
                new TestProviderContext()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.CONFIGURE);
        assertThat(error.entry()).isEqualTo("kvm-b");
    }

    @Test
    void theProductionProviderDialsOverSshAndAMissingKeyIsTransient() {
        // The fixture's key file does not exist: the dial stops there, before any network I/O,
        // and the error heals once the key appears, so it is TRANSIENT and names the file.
        try (KvmFixture fixture = KvmFixture.oneHost();
             KvmProvider provider = new KvmProviderFactory().create("kvm-b", fixture.config, fixture.context)) {
            ProviderException error = catchProviderException(() -> provider.get("host-1/proxy-1", Requests.deadline()));
            List<PreflightCheck> checks = provider.preflight(Requests.deadline());

            assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(error.getMessage()).contains("/nonexistent/id_ed25519");
            assertThat(checks.get(0).passed()).isFalse();
        }
    }
}
