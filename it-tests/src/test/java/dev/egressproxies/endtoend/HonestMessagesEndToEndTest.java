package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

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
 * What {@code egressctl} says, each in a separate process, where it used to say something
 * misleading or nothing: a delete of what does not exist, files given to {@code apply -f} that
 * are no desired set, unreadable {@code --cloud-init} files, and a create of a name that exists
 * with other values. Also where it keeps its state: a relative {@code XDG_STATE_HOME} is ignored,
 * and a read-only command creates no directory.
 */
@Tag("integration")
class HonestMessagesEndToEndTest {
    @TempDir
    Path temp;
    Path home;
    Path work;
    EgressctlProcess egressctl;

    @BeforeEach
    void prepare() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        work = Files.createDirectories(temp.resolve("work"));
        Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: lab
                    type: fake
                    zones: [zone-a, zone-b]
                    machineTypes: [small, large]
                    stateFile: %s
                """.formatted(temp.resolve("lab.json")));
        egressctl = new EgressctlProcess(home, work);
    }

    @Test
    void deletingWhatDoesNotExistSaysNothingToDelete() {
        EgressctlProcess.Result result = egressctl.run("delete", "lab/zone-a/never");
        assertThat(result.exitCode()).as(result.toString()).isZero();
        assertThat(result.out()).isEqualTo("nothing to delete: lab/zone-a/never does not exist\n");

        create("demo", "--zone", "zone-a");
        EgressctlProcess.Result deleted = egressctl.run("delete", "lab/zone-a/demo");
        assertThat(deleted.out()).as(deleted.toString()).isEqualTo("deleted lab/zone-a/demo\n");
    }

    @Test
    void applyOfAFileThatIsNoDesiredSetSaysWhatOneLooksLike() throws IOException {
        expectUsageError(egressctl.run("apply", "-f", work.resolve("egress.yaml").toString()),
                "this is an egressctl config file", "pass it with --config", "proxies:");
        expectUsageError(egressctl.run("apply", "-f", Files.writeString(work.resolve("empty.yaml"), "").toString()),
                "the file is empty; a desired set lists its proxies", "proxies:");
        Path twoDocuments = Files.writeString(work.resolve("two.yaml"), """
                proxies:
                  - {name: a, provider: lab, zone: zone-a, machineType: small, image: debian-12}
                ---
                proxies:
                  - {name: b, provider: lab, zone: zone-a, machineType: small, image: debian-12}
                """);
        expectUsageError(egressctl.run("apply", "-f", twoDocuments.toString()),
                "(line 4): a second YAML document starts here", "one 'proxies' list");
    }

    @Test
    void anUnreadableCloudInitFileIsNamedWithWhatIsWrong() throws IOException {
        Path missing = work.resolve("missing.yaml");
        expectUsageError(create("x", "--zone", "zone-a", "--cloud-init", missing.toString()),
                "--cloud-init: no such file: " + missing);
        Path binary = Files.write(work.resolve("binary"), new byte[] {(byte) 0xff, 'a'});
        expectUsageError(create("x", "--zone", "zone-a", "--cloud-init", binary.toString()),
                "--cloud-init: " + binary + " is not UTF-8 text (byte 0xff at offset 0)");
        assertThat(egressctl.run("list", "-o", "json").out().trim()).as("nothing was created").isEqualTo("[ ]");
    }

    @Test
    void aCreateOfANameThatExistsWithOtherValuesSaysSoAndWhatWouldChangeIt() {
        create("edge", "--zone", "zone-a", "--uid", "u-1");

        EgressctlProcess.Result otherUid = create("edge", "--zone", "zone-a", "--uid", "u-2");
        assertThat(otherUid.exitCode()).as(otherUid.toString()).isZero();
        assertThat(otherUid.out()).isEqualTo("lab/zone-a/edge\n");
        assertThat(otherUid.err()).contains("lab/zone-a/edge already exists with other values than asked: uid u-1,"
                + " asked u-2").contains("delete it and create it again");

        EgressctlProcess.Result otherType = egressctl.run("create", "edge", "--provider", "lab", "--zone", "zone-a",
                "--machine-type", "large", "--image", "debian-12");
        assertThat(otherType.exitCode()).as(otherType.toString()).isZero();
        assertThat(otherType.err()).contains("machineType small, asked large")
                .contains("egressctl apply with these values would replace it");

        EgressctlProcess.Result same = create("edge", "--zone", "zone-a", "--uid", "u-1");
        assertThat(same.err()).as("the same values: nothing to say").isEmpty();
    }

    @Test
    void aRelativeXdgStateHomeIsIgnoredAndAReadOnlyListCreatesNoDirectory() throws IOException {
        Files.delete(work.resolve("egress.yaml"));   // the built-in default keeps its state under the state directory
        egressctl.with("XDG_STATE_HOME", "relative-state");

        EgressctlProcess.Result listed = egressctl.run("list");
        assertThat(listed.exitCode()).as(listed.toString()).isZero();
        assertThat(home.resolve(".local")).as("list created a directory").doesNotExist();

        EgressctlProcess.Result created = egressctl.run("create", "demo", "--machine-type", "small", "--image",
                "debian-12");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(work.resolve("relative-state")).doesNotExist();
        assertThat(home.resolve(".local/state/egress/fake/instances.json")).exists();
    }

    private EgressctlProcess.Result create(String name, String... options) {
        List<String> arguments = new ArrayList<>(List.of("create", name, "--provider", "lab", "--machine-type",
                "small", "--image", "debian-12"));
        arguments.addAll(List.of(options));
        return egressctl.run(arguments.toArray(String[]::new));
    }

    private static void expectUsageError(EgressctlProcess.Result result, String... messages) {
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(2);
        assertThat(result.out()).as(result.toString()).isEmpty();
        assertThat(result.err()).as(result.toString()).startsWith("egressctl: ").contains(messages)
                .doesNotContain("com.fasterxml", "FAIL_ON_", "Exception");
    }
}
