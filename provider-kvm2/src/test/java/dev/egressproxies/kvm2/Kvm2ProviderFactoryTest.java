package dev.egressproxies.kvm2;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestProviderContext;
import dev.egressproxies.kvm2.config.Kvm2Config;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plugin entry point: its type, its registrations, and the providers it builds. */
class Kvm2ProviderFactoryTest {

    @Test
    void theTypeIsKvm2AndTheConfigurationIsKvm2Config() {
        Kvm2ProviderFactory factory = new Kvm2ProviderFactory();

        assertThat(factory.type()).isEqualTo("kvm2");
        assertThat(factory.configType()).isEqualTo(Kvm2Config.class);
    }

    @Test
    void theFactoryIsRegisteredForTheModulePathAndTheClassPath() throws IOException {
        ModuleDescriptor descriptor = Kvm2ProviderFactory.class.getModule().getDescriptor();
        assertThat(descriptor).as("tests run on the module path").isNotNull();
        assertThat(descriptor.provides()).anySatisfy(provides -> {
            assertThat(provides.service()).isEqualTo(ProviderFactory.class.getName());
            assertThat(provides.providers()).containsExactly(Kvm2ProviderFactory.class.getName());
        });
        assertThat(descriptor.opens()).anySatisfy(opens -> {
            assertThat(opens.source()).isEqualTo("dev.egressproxies.kvm2.config");
            assertThat(opens.isQualified()).as("opened to everyone, not to a binding library").isFalse();
        });
        assertThat(ModuleLayer.boot().findModule("dev.egressproxies.kvm.common").orElseThrow().getDescriptor().opens())
                .as("the shared config records bind too").anySatisfy(opens -> {
                    assertThat(opens.source()).isEqualTo("dev.egressproxies.kvm.common.config");
                    assertThat(opens.isQualified()).isFalse();
                });
        try (InputStream services = Kvm2ProviderFactory.class.getModule()
                .getResourceAsStream("META-INF/services/" + ProviderFactory.class.getName())) {
            assertThat(new String(services.readAllBytes(), StandardCharsets.UTF_8).trim())
                    .isEqualTo(Kvm2ProviderFactory.class.getName());
        }
    }

    @Test
    void theProviderReachesItsHostsThroughTheDialerTheSeamMakes() throws InterruptedException {
        try (Kvm2Fixture fixture = Kvm2Fixture.standard()) {
            fixture.cacheBaseImage();
            Kvm2ProviderFactory factory = new Kvm2ProviderFactory((entry, config, context) -> fixture.dialer);

            try (Kvm2Provider provider = factory.create(Kvm2Fixture.ENTRY, fixture.config, fixture.context)) {
                assertThat(provider.create(Kvm2Fixture.request("proxy-9", Kvm2Fixture.IMAGE), Requests.deadline()))
                        .isEqualTo("host-1/proxy-9");
            }

            assertThat(fixture.dialer.awaitAllClosed()).as("closing the provider closes its connections").isTrue();
        }
    }

    @Test
    void anEntryWithoutSettingsIsAConfigurationError() {
        ProviderException error = catchProviderException(() -> new Kvm2ProviderFactory().create("kvm2-b", null,
                new TestProviderContext()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.CONFIGURE);
        assertThat(error.entry()).isEqualTo("kvm2-b");
    }

    @Test
    void theProductionProviderDialsOverSshAndAMissingKeyIsTransient() {
        try (Kvm2Fixture fixture = Kvm2Fixture.standard();
             Kvm2Provider provider = new Kvm2ProviderFactory().create("kvm2-b", fixture.config, fixture.context)) {
            ProviderException error = catchProviderException(() -> provider.get("host-1/proxy-1",
                    Requests.deadline()));
            List<PreflightCheck> checks = provider.preflight(Requests.deadline());

            assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(error.getMessage()).contains("/nonexistent/id_ed25519");
            assertThat(checks.get(0).passed()).isFalse();
            assertThat(checks).extracting(PreflightCheck::name).contains("machine types",
                    "image debian-12 at " + fixture.server.url("").replaceAll("/$", ""));
            assertThat(checks).filteredOn(check -> check.name().startsWith("image debian-12 at "))
                    .singleElement().extracting(PreflightCheck::detail).isEqualTo("fetchable, " + Kvm2Fixture.IMAGE_BYTES.length
                    + " bytes as published (qcow2, compression none, sha256 pinned)");
        }
    }
}
