package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;

/** The private folder that holds a tunnel's local socket. */
class PrivateSocketDirectoryTest {
    @Test
    void isOwnerOnlyAndDeletedWithItsContent() throws Exception {
        PrivateSocketDirectory directory = PrivateSocketDirectory.create("egress-test-");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory.path())))
                .isEqualTo("rwx------");
        Files.writeString(directory.resolve("forwarded.sock"), "stands in for the socket");
        directory.close();
        assertThat(directory.path()).doesNotExist();
        directory.close();
    }
}
