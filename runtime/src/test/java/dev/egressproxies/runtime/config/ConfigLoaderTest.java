package dev.egressproxies.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    @TempDir
    Path temp;

    @Test
    void readsYamlEntriesInOrder() throws IOException {
        Configuration configuration = new ConfigLoader().load(file("c.yaml", """
                providers:
                  - name: a
                    type: fake
                  - name: b
                    type: fake
                    zones: [z1]
                """));
        assertThat(configuration.providers()).extracting(entry -> entry.get("name").asText()).containsExactly("a", "b");
        assertThat(configuration.source().file()).isPresent();
    }

    @Test
    void readsJson() throws IOException {
        Configuration configuration = new ConfigLoader().load(file("c.json",
                "{\"providers\": [{\"name\": \"a\", \"type\": \"fake\"}]}"));
        assertThat(configuration.providers()).hasSize(1);
    }

    @Test
    void rejectsUnknownTopLevelFieldsByPath() throws IOException {
        Path file = file("c.yaml", "providers: [{name: a, type: fake}]\nprovider: []\n");
        assertThatThrownBy(() -> new ConfigLoader().load(file))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("provider: unknown field (known: providers)");
    }

    @Test
    void rejectsDuplicateKeys() throws IOException {
        Path file = file("c.yaml", "providers: [{name: a, type: fake, name: b}]\n");
        assertThatThrownBy(() -> new ConfigLoader().load(file))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Duplicate field 'name'")
                .hasMessageContaining("line 1");
    }

    @Test
    void rejectsEmptyAndMisshapenFiles() throws IOException {
        assertThatThrownBy(() -> new ConfigLoader().load(file("empty.yaml", "")))
                .hasMessageContaining("the file is empty");
        assertThatThrownBy(() -> new ConfigLoader().load(file("list.yaml", "- a\n")))
                .hasMessageContaining("top level must be a mapping");
        assertThatThrownBy(() -> new ConfigLoader().load(file("none.yaml", "providers: []\n")))
                .hasMessageContaining("providers: is empty");
        assertThatThrownBy(() -> new ConfigLoader().load(file("scalar.yaml", "providers: [a]\n")))
                .hasMessageContaining("providers[0]: must be a mapping");
        assertThatThrownBy(() -> new ConfigLoader().load(file("bad.yaml", "providers: [\n")))
                .hasMessageContaining("not valid YAML or JSON");
    }

    @Test
    void theBuiltInDefaultIsOneFakeEntryWithFileState() {
        Configuration configuration = ConfigLoader.builtInDefault(temp);
        assertThat(configuration.source().file()).isEmpty();
        assertThat(configuration.providers()).singleElement().satisfies(entry -> {
            assertThat(entry.get("type").asText()).isEqualTo("fake");
            assertThat(entry.get("stateFile").asText()).startsWith(temp.toString());
        });
    }

    private Path file(String name, String content) throws IOException {
        return Files.writeString(temp.resolve(name), content);
    }
}
