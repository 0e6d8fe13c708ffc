package dev.egressproxies.runtime.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.Provider;
import dev.egressproxies.runtime.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProxySetLoaderTest {
    private static final Map<String, Provider> ENTRIES = Map.of(
            "fake", new RecordingProvider("fake", "zone-a", "zone-b"),
            "other", new RecordingProvider("other", "zone-a"));

    @TempDir
    Path temp;

    @Test
    void resolvesProxiesWithCloudInitFromAFileBesideTheSet() throws IOException {
        Files.writeString(temp.resolve("user-data.yaml"), "#cloud-config\n");
        DesiredState state = load("""
                providers: [other]
                proxies:
                  - {name: a, provider: fake, zone: zone-a, machineType: small, image: debian-12, uid: u-1}
                  - {name: b, provider: fake, zone: zone-b, machineType: small, image: debian-12, cloudInitFile: user-data.yaml}
                """);
        assertThat(state.entries()).containsExactly("other", "fake");
        assertThat(state.proxies()).hasSize(2);
        assertThat(state.proxies().get(0).request().uid()).isEqualTo("u-1");
        assertThat(state.proxies().get(1).request().uid()).isNotBlank();
        assertThat(state.proxies().get(1).request().cloudInit()).isEqualTo("#cloud-config\n");
    }

    @Test
    void unknownFieldsAreNamedByPathAndDoNotHideOtherProblems() {
        assertThatThrownBy(() -> load("""
                proxys: []
                proxies:
                  - {name: a, provider: fake, zone: zone-a, machinetype: small, image: debian-12}
                  - {name: b, provider: fake, zone: zone-c, machineType: small, image: debian-12, colour: red}
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("4 problems, nothing was changed")
                .hasMessageContaining("proxys: unknown field (known: providers, proxies)")
                .hasMessageContaining("proxies[0].machinetype: unknown field (known: cloudInit, cloudInitFile, image,"
                        + " machineType, name, provider, uid, zone)")
                .hasMessageContaining("proxies[0].machineType: missing")
                .hasMessageContaining("proxies[1].colour: unknown field");
    }

    @Test
    void everyProblemIsReportedAtOnceWithItsPath() {
        assertThatThrownBy(() -> load("""
                providers: [nowhere]
                proxies:
                  - {name: Bad_Name, provider: fake, zone: zone-a, machineType: small, image: debian-12}
                  - {name: b, provider: missing-entry, machineType: small, image: debian-12}
                  - {name: c, provider: fake, zone: zone-a, machineType: small, image: debian-12}
                  - {name: c, provider: fake, zone: zone-a, machineType: small, image: debian-12}
                  - {provider: fake}
                  - {name: d, provider: fake, zone: zone-a, machineType: small, image: debian-12, cloudInit: x, cloudInitFile: y}
                  - {name: e, provider: fake, zone: zone-c, machineType: small, image: debian-12}
                  - {name: f, provider: fake, zone: zone-a, machineType: small, image: debian-12, cloudInitFile: absent.yaml}
                  - {name: [g], provider: fake}
                  - just-a-name
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("nothing was changed")
                .hasMessageContaining("providers[0]: no provider entry named 'nowhere'")
                .hasMessageContaining("proxies[0]: name 'Bad_Name' is not a DNS label")
                .hasMessageContaining("proxies[1].provider: no provider entry named 'missing-entry'")
                .hasMessageContaining("proxies[3].name: 'c' is listed twice")
                .hasMessageContaining("proxies[4].name: missing")
                .hasMessageContaining("proxies[4].machineType: missing")
                .hasMessageContaining("proxies[5]: give cloudInit or cloudInitFile, not both")
                .hasMessageContaining("proxies[6]: placement.zone 'zone-c' is not configured")
                .hasMessageContaining("proxies[7].cloudInitFile: no such file: " + temp.resolve("absent.yaml"))
                .hasMessageContaining("proxies[8].name: expected a single value, got a list")
                .hasMessageContaining("proxies[9]: expected a mapping with name, provider, machineType and image,"
                        + " got 'just-a-name'");
    }

    @Test
    void userDataThatIsNotUtf8IsNamedWithItsFirstBadByte() throws IOException {
        Files.write(temp.resolve("binary"), new byte[] {'o', 'k', (byte) 0xff});
        assertThatThrownBy(() -> load("""
                proxies:
                  - {name: a, provider: fake, zone: zone-a, machineType: small, image: debian-12, cloudInitFile: binary}
                """))
                .hasMessageContaining("proxies[0].cloudInitFile: " + temp.resolve("binary")
                        + " is not UTF-8 text (byte 0xff at offset 2)");
    }

    @Test
    void aFileThatIsNoDesiredSetSaysWhatOneLooksLike() throws IOException {
        assertThatThrownBy(() -> load("")).hasMessageContaining("the file is empty; a desired set lists its proxies")
                .hasMessageContaining("proxies:");
        assertThatThrownBy(() -> load("providers:\n  - {name: lab, type: fake}\n"))
                .hasMessageContaining("this is an egressctl config file").hasMessageContaining("--config");
        assertThatThrownBy(() -> load("proxies: []\n---\nproxies: []\n"))
                .hasMessageContaining("(line 3): a second YAML document starts here")
                .hasMessageNotContaining("FAIL_ON_TRAILING_TOKENS");
        assertThatThrownBy(() -> load("proxies: {name: a}\n"))
                .hasMessageContaining("proxies: expected a list of proxies, got a mapping");
        assertThatThrownBy(() -> new ProxySetLoader().load(temp.resolve("absent.yaml"), entry -> Optional.empty()))
                .hasMessage("no such file: " + temp.resolve("absent.yaml"));
        assertThatThrownBy(() -> load("- a\n- b\n"))
                .hasMessageContaining("the top level is a list; a desired set is a mapping with a 'proxies' list");
    }

    private DesiredState load(String yaml) throws IOException {
        Path file = Files.writeString(temp.resolve("proxies.yaml"), yaml);
        return new ProxySetLoader().load(file, entry -> Optional.ofNullable(ENTRIES.get(entry)));
    }
}
