package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code egressctl apply} converging on a desired set, each step a separate {@code egressctl}
 * process on a file-backed fake entry with two zones: apply; move a proxy to another zone and
 * machine type; a dry run shows the replacement and changes nothing; apply replaces it; a second
 * apply plans nothing; a bad file lists every problem and changes nothing.
 */
@Tag("integration")
class ApplyConvergenceEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;
    Path work;
    Path state;
    Path set;
    EgressctlProcess egressctl;

    @BeforeEach
    void prepare() throws IOException {
        Path home = Files.createDirectories(temp.resolve("home"));
        work = Files.createDirectories(temp.resolve("work"));
        state = temp.resolve("lab.json");
        Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: lab
                    type: fake
                    zones: [zone-a, zone-b]
                    machineTypes: [small, large]
                    images: [debian-12]
                    stateFile: %s
                """.formatted(state));
        Files.writeString(work.resolve("user-data.yaml"), "#cloud-config\nhostname: egress\n");
        set = work.resolve("proxies.yaml");
        egressctl = new EgressctlProcess(home, work);
    }

    @Test
    void applyReplacesWhatMovedPlansNothingTheSecondTimeAndABadFileChangesNothing() throws IOException {
        writeSet("zone-b", "small");
        EgressctlProcess.Result first = succeeded(egressctl.run("apply", "-f", set.toString()));
        assertThat(first.out()).contains("Plan: 2 to create, 0 to start, 0 to replace, 0 to delete, 0 unchanged.");
        assertThat(names(list())).containsExactlyInAnyOrder("lab/zone-b/egress-1", "lab/zone-a/egress-2");

        writeSet("zone-a", "large");
        byte[] before = Files.readAllBytes(state);
        EgressctlProcess.Result dryRun = succeeded(egressctl.run("apply", "-f", set.toString(), "--dry-run"));
        assertThat(dryRun.out()).contains("Plan: 0 to create, 0 to start, 1 to replace, 0 to delete, 1 unchanged.")
                .contains("-/+ replace lab/zone-b/egress-1 (zone: zone-b -> zone-a, machineType: small -> large)")
                .contains("Dry run: nothing was changed.");
        assertThat(Files.readAllBytes(state)).as("a dry run changes nothing").isEqualTo(before);

        JsonNode applied = json(egressctl.run("apply", "-f", set.toString(), "-o", "json"));
        assertThat(applied.get("applied").asBoolean()).isTrue();
        JsonNode step = applied.get("plan").get(0);
        assertThat(step.get("action").asText()).isEqualTo("replace");
        assertThat(step.get("existingId").asText()).isEqualTo("lab/zone-b/egress-1");
        assertThat(step.get("changes")).extracting(change -> change.get("field").asText() + ": "
                + change.get("from").asText() + " -> " + change.get("to").asText())
                .containsExactly("zone: zone-b -> zone-a", "machineType: small -> large");
        assertThat(applied.get("results").get(0).get("status").asText()).isEqualTo("ok");
        assertThat(applied.get("results").get(0).get("id").asText()).isEqualTo("lab/zone-a/egress-1");

        JsonNode listed = list();
        assertThat(names(listed)).containsExactlyInAnyOrder("lab/zone-a/egress-1", "lab/zone-a/egress-2");
        JsonNode moved = byId(listed, "lab/zone-a/egress-1");
        assertThat(moved.get("machineType").asText()).isEqualTo("large");
        assertThat(moved.get("userDataSha256").asText()).hasSize(64);

        EgressctlProcess.Result again = succeeded(egressctl.run("apply", "-f", set.toString()));
        assertThat(again.out()).contains("No changes: 2 proxies already as desired.");

        Files.writeString(work.resolve("user-data.yaml"), "#cloud-config\nhostname: changed\n");
        EgressctlProcess.Result userData = succeeded(egressctl.run("apply", "-f", set.toString(), "--dry-run"));
        assertThat(userData.out()).containsPattern(
                "-/\\+ replace lab/zone-a/egress-1 \\(userData: sha256:[0-9a-f]{12} -> sha256:[0-9a-f]{12}\\)");

        Files.writeString(set, """
                proxies:
                  - {name: egress-1, provider: lab, zone: zone-c, machineType: small, image: debian-12, colour: red}
                  - {name: egress-2, provider: lab, zone: zone-a, machineType: huge, image: debian-13}
                  - {name: egress-2, provider: lab, zone: zone-a, machineType: small, image: debian-12}
                  - {name: egress-3, provider: nowhere, machineType: small, image: debian-12}
                  - {name: egress-4, provider: lab, zone: zone-a, machineType: small, image: debian-12, cloudInitFile: gone.yaml}
                """);
        before = Files.readAllBytes(state);
        EgressctlProcess.Result bad = egressctl.run("apply", "-f", set.toString());
        assertThat(bad.exitCode()).as(bad.toString()).isEqualTo(2);
        assertThat(bad.out()).as("nothing planned, nothing printed: " + bad).isEmpty();
        assertThat(bad.err()).as(bad.toString()).contains("nothing was changed")
                .contains("proxies[0].colour: unknown field")
                .contains("proxies[1]: placement.machineType 'huge' is not configured")
                .contains("proxies[2].name: 'egress-2' is listed twice")
                .contains("proxies[3].provider: no provider entry named 'nowhere'")
                .contains("proxies[4].cloudInitFile: no such file: " + work.resolve("gone.yaml"));
        assertThat(Files.readAllBytes(state)).as("a bad file changes nothing").isEqualTo(before);

        Files.writeString(set, """
                proxies:
                  - {name: egress-1, provider: lab, zone: zone-c, machineType: small, image: debian-12}
                  - {name: egress-2, provider: lab, zone: zone-a, machineType: small, image: debian-13}
                """);
        EgressctlProcess.Result placement = egressctl.run("apply", "-f", set.toString());
        assertThat(placement.exitCode()).as(placement.toString()).isEqualTo(2);
        assertThat(placement.err()).contains("proxies[0]: placement.zone 'zone-c' is not configured")
                .contains("proxies[1]: placement.image 'debian-13' is not configured");
        assertThat(Files.readAllBytes(state)).as("an unknown placement changes nothing").isEqualTo(before);
    }

    private void writeSet(String zone, String machineType) throws IOException {
        Files.writeString(set, """
                proxies:
                  - {name: egress-1, provider: lab, zone: %s, machineType: %s, image: debian-12, cloudInitFile: user-data.yaml}
                  - {name: egress-2, provider: lab, zone: zone-a, machineType: small, image: debian-12}
                """.formatted(zone, machineType));
    }

    private JsonNode list() throws IOException {
        return json(egressctl.run("list", "--provider", "lab", "-o", "json"));
    }

    private static List<String> names(JsonNode instances) {
        List<String> ids = new ArrayList<>();
        instances.forEach(instance -> ids.add(instance.get("id").asText()));
        return ids;
    }

    private static JsonNode byId(JsonNode instances, String id) {
        for (JsonNode instance : instances) {
            if (instance.get("id").asText().equals(id)) {
                return instance;
            }
        }
        throw new AssertionError(id + " is not listed: " + instances);
    }

    private static EgressctlProcess.Result succeeded(EgressctlProcess.Result result) {
        assertThat(result.exitCode()).as(result.toString()).isZero();
        return result;
    }

    private static JsonNode json(EgressctlProcess.Result result) throws IOException {
        return JSON.readTree(succeeded(result).out());
    }
}
