package dev.egressproxies.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.endtoend.EgressctlProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plugins that bundle incompatible versions of one library, one that bundles an older Jackson
 * than the platform's, and plugins of plain jars that clash with the platform's modules (Jackson
 * 2.9 of the platform's module names, a split package {@code javax.inject}, another MINA SSHD than
 * the kvm plugin's) work side by side with the bundled backends in one {@code egressctl} run, each
 * in a module layer of its own; a plugin whose layer cannot be resolved is reported naming its
 * folder and the conflict, and only its entries fail.
 */
class PluginIsolationEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<IsolatedPlugins.Kind> WORKING = List.of(IsolatedPlugins.Kind.GUAVA_OLD,
            IsolatedPlugins.Kind.GUAVA_NEW, IsolatedPlugins.Kind.OWN_JACKSON, IsolatedPlugins.Kind.PLAIN_JACKSON,
            IsolatedPlugins.Kind.SPLIT_PACKAGE, IsolatedPlugins.Kind.OTHER_SSHD);

    @TempDir
    Path temp;

    private EgressctlProcess egressctl;
    private Path work;

    @BeforeEach
    void configure() throws IOException {
        work = Files.createDirectories(temp.resolve("work"));
        egressctl = new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESSCTL_PLUGINS", IsolatedPlugins.folder().toString());
        // A bundled backend in the same config: the fake, its instances in a file so runs share them.
        StringBuilder config = new StringBuilder("providers:\n  - {name: fake-1, type: fake, zones: [lab],"
                + " machineTypes: [tiny], images: [alpine], stateFile: fake-1.json}\n");
        for (IsolatedPlugins.Kind kind : IsolatedPlugins.Kind.values()) {
            config.append("  - {name: ").append(kind.type()).append("-1, type: ").append(kind.type())
                    .append(", zone: lab, machineTypes: [tiny], images: [alpine]}\n");
        }
        Files.writeString(work.resolve("egress.yaml"), config);
    }

    @Test
    void eachPluginUsesTheLibraryItBundlesAndTheBrokenOneIsReported() throws IOException {
        JsonNode providers = json(egressctl.run("providers", "-o", "json"), 0);
        List<String> types = new ArrayList<>();
        providers.get("plugins").forEach(plugin -> types.add(plugin.get("type").asText()));
        assertThat(types).contains("fake", "kvm", "kvm2", "guava-old", "guava-new", "own-jackson", "plain-jackson",
                "split-package", "other-sshd");
        JsonNode ownJackson = plugin(providers, "own-jackson");
        assertThat(ownJackson.get("version").asText()).as("the Jackson the plugin loaded is its own")
                .isEqualTo("jackson 2.17.2");
        // Each reports the jar its library came from: its own, not the platform's or another plugin's.
        assertThat(plugin(providers, "plain-jackson").get("version").asText()).isEqualTo("jackson-databind-2.9.10.jar");
        assertThat(plugin(providers, "split-package").get("version").asText()).isEqualTo("jakarta.inject-api-1.0.jar");
        assertThat(plugin(providers, "other-sshd").get("version").asText()).isEqualTo("sshd-osgi-2.12.1.jar");
        assertThat(providers.get("brokenPlugins")).hasSize(1);
        JsonNode broken = providers.get("brokenPlugins").get(0);
        assertThat(broken.get("location").asText()).isEqualTo(IsolatedPlugins.folder().resolve("broken").toString());
        assertThat(broken.get("problem").asText()).contains("com.google.common");

        for (IsolatedPlugins.Kind kind : WORKING) {
            EgressctlProcess.Result created = egressctl.run("create", "vm-" + kind.type(), "--provider",
                    kind.type() + "-1", "--machine-type", "tiny", "--image", "alpine", "-o", "json");
            assertThat(json(created, 0).get("id").asText()).startsWith(kind.type() + "-1/i-");
        }
        EgressctlProcess.Result fakeCreated = egressctl.run("create", "vm-fake", "--provider", "fake-1",
                "--machine-type", "tiny", "--image", "alpine", "-o", "json");
        assertThat(json(fakeCreated, 0).get("id").asText()).startsWith("fake-1/");
        EgressctlProcess.Result listed = egressctl.run("list", "-o", "json");
        assertThat(listed.exitCode()).as(listed.toString()).isEqualTo(2);
        List<String> names = new ArrayList<>();
        JSON.readTree(listed.out()).forEach(instance -> names.add(instance.get("name").asText()));
        List<String> expected = new ArrayList<>(List.of("vm-fake"));
        WORKING.forEach(kind -> expected.add("vm-" + kind.type()));
        assertThat(names).as("one run lists the instances of every plugin and of the bundled fake")
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(listed.err()).as("only the broken plugin's entry is not listed")
                .contains("not listed: listManaged on provider entry 'broken-1'")
                .contains(IsolatedPlugins.folder().resolve("broken").toString())
                .contains("com.google.common");
        for (IsolatedPlugins.Kind kind : WORKING) {
            assertThat(listed.err()).doesNotContain("'" + kind.type() + "-1'");
        }

        for (IsolatedPlugins.Kind kind : WORKING) {
            String id = kind.type() + "-1/" + json(egressctl.run("get", idOf(kind), "-o", "json"), 0).get("providerId")
                    .asText();
            assertThat(id).isEqualTo(idOf(kind));
            EgressctlProcess.Result deleted = egressctl.run("delete", id);
            assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
        }
        String fakeId = json(egressctl.run("list", "--provider", "fake-1", "-o", "json"), 0).get(0).get("id").asText();
        assertThat(json(egressctl.run("get", fakeId, "-o", "json"), 0).get("name").asText()).isEqualTo("vm-fake");
        assertThat(egressctl.run("delete", fakeId).exitCode()).isZero();
        EgressctlProcess.Result refused = egressctl.run("create", "vm-broken", "--provider", "broken-1",
                "--machine-type", "tiny", "--image", "alpine");
        assertThat(refused.exitCode()).as(refused.toString()).isNotZero();
        assertThat(refused.err()).contains(IsolatedPlugins.folder().resolve("broken").toString(), "com.google.common");
    }

    /**
     * The isolated plugins declare no conformance profile: {@code egressctl conformance} runs the
     * suite on what the command line declares, without hooks, and says what is missing when the
     * placements are not given.
     */
    @Test
    void eachPluginPassesEgressctlConformanceWithWhatTheCommandLineDeclares() throws IOException {
        for (IsolatedPlugins.Kind kind : WORKING) {
            EgressctlProcess.Result run = egressctl.run("conformance", kind.type() + "-1", "--placement",
                    "lab/tiny/alpine", "--unknown-id", "i-0000000000000000", "--malformed-id", "lab/not-an-id",
                    "--capability", "REACHES_RUNNING", "--state-timeout", "5s", "-o", "json");
            JsonNode document = json(run, 0);
            assertThat(document.get("failed").asInt()).as(run.toString()).isZero();
            assertThat(document.get("passed").asInt()).isEqualTo(document.get("cases").size()).isGreaterThanOrEqualTo(62);
        }
        EgressctlProcess.Result refused = egressctl.run("conformance", "guava-old-1");
        assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(2);
        assertThat(refused.err()).contains("proposes no placements", "--placement ZONE/MACHINE-TYPE/IMAGE");
        EgressctlProcess.Result noHook = egressctl.run("conformance", "guava-old-1", "--placement", "lab/tiny/alpine",
                "--unknown-id", "i-0000000000000000", "--capability", "STOPS_INSTANCES");
        assertThat(noHook.exitCode()).as(noHook.toString()).isEqualTo(2);
        assertThat(noHook.err()).contains("STOPS_INSTANCES needs a hook");
    }

    private String idOf(IsolatedPlugins.Kind kind) throws IOException {
        EgressctlProcess.Result listed = egressctl.run("list", "--provider", kind.type() + "-1", "-o", "json");
        return json(listed, 0).get(0).get("id").asText();
    }

    private static JsonNode plugin(JsonNode providers, String type) {
        for (JsonNode plugin : providers.get("plugins")) {
            if (plugin.get("type").asText().equals(type)) {
                return plugin;
            }
        }
        throw new AssertionError("no plugin of type " + type + " in " + providers);
    }

    private static JsonNode json(EgressctlProcess.Result result, int exitCode) throws IOException {
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(exitCode);
        return JSON.readTree(result.out());
    }
}
