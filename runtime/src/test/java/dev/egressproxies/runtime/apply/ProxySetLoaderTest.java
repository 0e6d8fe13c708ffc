package dev.egressproxies.runtime.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.runtime.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProxySetLoaderTest {
    private static final Set<String> ENTRIES = Set.of("fake", "other");

    @TempDir
    Path temp;

    @Test
    void resolvesProxiesWithCloudInitFromAFileBesideTheSet() throws IOException {
        Files.writeString(temp.resolve("user-data.yaml"), "#cloud-config\n");
        DesiredState state = load("""
                providers: [other]
                proxies:
                  - {name: a, provider: fake, zone: zone-a, machineType: small, image: debian-12, uid: u-1}
                  - {name: b, provider: fake, machineType: small, image: debian-12, cloudInitFile: user-data.yaml}
                """);
        assertThat(state.entries()).containsExactly("other", "fake");
        assertThat(state.proxies()).hasSize(2);
        assertThat(state.proxies().get(0).request().uid()).isEqualTo("u-1");
        assertThat(state.proxies().get(1).request().uid()).isNotBlank();
        assertThat(state.proxies().get(1).request().cloudInit()).isEqualTo("#cloud-config\n");
    }

    @Test
    void unknownFieldsAreNamedByPath() {
        assertThatThrownBy(() -> load("proxies:\n  - {name: a, provider: fake, machinetype: small}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("proxies[0].machinetype: unknown field (known: ")
                .hasMessageContaining("machineType");
    }

    @Test
    void everyProblemIsReportedAtOnceWithItsPath() {
        assertThatThrownBy(() -> load("""
                providers: [nowhere]
                proxies:
                  - {name: Bad_Name, provider: fake}
                  - {name: b, provider: missing-entry}
                  - {name: c, provider: fake}
                  - {name: c, provider: fake}
                  - {provider: fake}
                  - {name: d, provider: fake, cloudInit: x, cloudInitFile: y}
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("nothing was changed")
                .hasMessageContaining("providers[0]: no provider entry named 'nowhere'")
                .hasMessageContaining("proxies[0]: name 'Bad_Name' is not a DNS label")
                .hasMessageContaining("proxies[1].provider: no provider entry named 'missing-entry'")
                .hasMessageContaining("proxies[3].name: 'c' is listed twice")
                .hasMessageContaining("proxies[4].name: missing")
                .hasMessageContaining("proxies[5]: give cloudInit or cloudInitFile, not both");
    }

    @Test
    void mistypedValuesAreNamedByPath() {
        assertThatThrownBy(() -> load("proxies: {name: a}\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("proxies");
    }

    private DesiredState load(String yaml) throws IOException {
        Path file = Files.writeString(temp.resolve("proxies.yaml"), yaml);
        return new ProxySetLoader().load(file, ENTRIES::contains);
    }
}
