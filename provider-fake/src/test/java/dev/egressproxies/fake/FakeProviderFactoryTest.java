package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.START;
import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Provider;
import dev.egressproxies.api.spi.ProviderFactory;
import dev.egressproxies.conformance.TestProviderContext;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FakeProviderFactoryTest {
    private final FakeProviderFactory factory = new FakeProviderFactory();

    @Test
    void namesItsTypeAndConfigRecord() {
        assertThat(factory.type()).isEqualTo("fake");
        assertThat(factory.configType()).isEqualTo(FakeConfig.class);
    }

    @Test
    void moduleRegistersTheFactoryAndOpensTheConfigToReflection() {
        ModuleDescriptor descriptor = FakeProviderFactory.class.getModule().getDescriptor();

        assertThat(descriptor.provides()).anySatisfy(provides -> {
            assertThat(provides.service()).isEqualTo(ProviderFactory.class.getName());
            assertThat(provides.providers()).containsExactly(FakeProviderFactory.class.getName());
        });
        assertThat(descriptor.opens()).anySatisfy(opens -> {
            assertThat(opens.source()).isEqualTo(FakeConfig.class.getPackageName());
            assertThat(opens.isQualified()).isFalse();
        });
    }

    @Test
    void buildsAFakeProviderThatTestsCanCastTo() {
        Provider provider = factory.create("entry", FakeConfig.defaults(),
                new TestProviderContext(Path.of("unused"), new ManualClock(START)));

        assertThat(provider).isInstanceOf(FakeProvider.class);
        assertThat(provider.toString()).contains("entry", "memory");
    }

    @Test
    void absentSettingsMeanTheDefaults() {
        FakeProvider provider = factory.create(TestProviders.ENTRY, null,
                new TestProviderContext(Path.of("unused"), new ManualClock(START)));

        assertThat(provider.create(request("proxy-1"), deadline())).isEqualTo("zone-a/proxy-1");
    }

    @Test
    void eachBuildIsIndependentWhenInMemory() {
        FakeProvider first = TestProviders.inMemory();
        FakeProvider second = TestProviders.inMemory();

        first.create(request("proxy-1"), deadline());

        assertThat(second.listManaged(deadline())).isEmpty();
    }
}
