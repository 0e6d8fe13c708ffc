package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One broken provider entry does not take down the others: entry {@code b}'s state file is
 * corrupt, so its calls fail with that file's error, while entry {@code g} keeps working, a
 * {@code list} of every entry lists {@code g} and reports {@code b}, and {@code check} reports
 * {@code b} as a failed check. Each step is a separate {@code egressctl} process.
 */
@Tag("integration")
class BrokenEntryEndToEndTest {
    @TempDir
    Path temp;
    Path work;
    EgressctlProcess egressctl;

    @BeforeEach
    void prepare() throws IOException {
        Path home = Files.createDirectories(temp.resolve("home"));
        work = Files.createDirectories(temp.resolve("work"));
        Files.writeString(temp.resolve("b.json"), "{ this is not JSON");
        Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: g
                    type: fake
                    stateFile: %s
                  - name: b
                    type: fake
                    stateFile: %s
                """.formatted(temp.resolve("g.json"), temp.resolve("b.json")));
        egressctl = new EgressctlProcess(home, work);
    }

    @Test
    void theGoodEntryKeepsWorkingAndTheBrokenOneReportsItsOwnError() {
        EgressctlProcess.Result created = egressctl.run("create", "web", "--provider", "g", "--machine-type", "small",
                "--image", "debian-12");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(created.out()).isEqualTo("g/zone-a/web\n");
        assertThat(egressctl.run("get", "g/zone-a/web").exitCode()).isZero();
        EgressctlProcess.Result listedGood = egressctl.run("list", "--provider", "g");
        assertThat(listedGood.exitCode()).as(listedGood.toString()).isZero();
        assertThat(listedGood.out()).contains("g/zone-a/web");

        EgressctlProcess.Result broken = egressctl.run("get", "b/zone-a/web");
        assertThat(broken.exitCode()).as(broken.toString()).isEqualTo(2);
        assertThat(broken.err()).contains("get on provider entry 'b'").contains(temp.resolve("b.json").toString());

        EgressctlProcess.Result listedAll = egressctl.run("list");
        assertThat(listedAll.exitCode()).as(listedAll.toString()).isEqualTo(2);
        assertThat(listedAll.out()).as(listedAll.toString()).contains("g/zone-a/web");
        assertThat(listedAll.err()).as(listedAll.toString()).contains("not listed: listManaged on provider entry 'b'")
                .contains(temp.resolve("b.json").toString());

        EgressctlProcess.Result checked = egressctl.run("check");
        assertThat(checked.exitCode()).as(checked.toString()).isEqualTo(1);
        assertThat(checked.out()).as(checked.toString()).containsPattern("(?m)^g .* ok ")
                .containsPattern("(?m)^b .* FAILED ");
    }

    @Test
    void anEntryWhosePluginFailsToBuildItFailsOnlyItsOwnCalls() throws IOException {
        Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: g
                    type: fake
                    stateFile: %s
                  - name: b
                    type: fake
                    stateFile: /
                """.formatted(temp.resolve("g.json")));

        EgressctlProcess.Result created = egressctl.run("create", "web", "--provider", "g", "--machine-type", "small",
                "--image", "debian-12");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        EgressctlProcess.Result broken = egressctl.run("create", "web", "--provider", "b", "--machine-type", "small",
                "--image", "debian-12");
        assertThat(broken.exitCode()).as(broken.toString()).isEqualTo(2);
        assertThat(broken.err()).contains("create on provider entry 'b'").contains("could not be built")
                .contains("stateFile '/' names no file");

        EgressctlProcess.Result listedAll = egressctl.run("list");
        assertThat(listedAll.exitCode()).as(listedAll.toString()).isEqualTo(2);
        assertThat(listedAll.out()).contains("g/zone-a/web");
        EgressctlProcess.Result checked = egressctl.run("check");
        assertThat(checked.out()).as(checked.toString()).containsPattern("(?m)^b .* FAILED .*names no file");
    }
}
