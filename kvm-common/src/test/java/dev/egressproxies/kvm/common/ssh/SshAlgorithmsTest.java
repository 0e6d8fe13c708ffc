package dev.egressproxies.kvm.common.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** ssh_config's KexAlgorithms, Ciphers and MACs read with OpenSSH's syntax against this client's algorithms. */
class SshAlgorithmsTest {
    private static SshAlgorithms ciphers(String value) {
        return SshAlgorithms.fromOpenSshConfig(Map.of("Ciphers", value)::get);
    }

    private static SshAlgorithms kex(String value) {
        return SshAlgorithms.fromOpenSshConfig(Map.of("KexAlgorithms", value)::get);
    }

    @Test
    void nothingSetIsTheDefaults() {
        SshAlgorithms none = SshAlgorithms.fromOpenSshConfig(Map.<String, String>of()::get);
        assertThat(none).isEqualTo(SshAlgorithms.DEFAULT);
        assertThat(none.isDefault()).isTrue();
        assertThat(none.written()).isEmpty();
        assertThat(SshAlgorithms.defaultCiphers()).first().extracting(cipher -> cipher.getName())
                .isEqualTo("aes128-gcm@openssh.com");
    }

    @Test
    void aListReplacesTheDefaultsInItsOrderPassingOverWhatThisClientLacks() {
        SshAlgorithms set = ciphers("aes256-ctr,no-such-cipher@example.org,aes128-ctr");
        assertThat(set.ciphers()).containsExactly("aes256-ctr", "aes128-ctr");
        assertThat(set.keyExchanges()).isNull();
        assertThat(set.written()).isEqualTo("Ciphers aes256-ctr,no-such-cipher@example.org,aes128-ctr");
    }

    @Test
    void plusAppendsMinusRemovesAndCaretPutsFirst() {
        SshAlgorithms added = kex("+diffie-hellman-group14-sha1");
        assertThat(added.keyExchanges()).contains("curve25519-sha256").endsWith("diffie-hellman-group14-sha1");
        assertThat(added.written()).isEqualTo("KexAlgorithms +diffie-hellman-group14-sha1");

        SshAlgorithms removed = kex("-sntrup761*,mlkem*");
        assertThat(removed.keyExchanges()).contains("curve25519-sha256")
                .noneMatch(name -> name.startsWith("sntrup761") || name.startsWith("mlkem"));

        assertThat(ciphers("^aes256-ctr").ciphers()).startsWith("aes256-ctr", "aes128-gcm@openssh.com")
                .doesNotHaveDuplicates();
        assertThat(SshAlgorithms.fromOpenSshConfig(Map.of("MACs", "hmac-sha2-512*")::get).macs())
                .containsExactly("hmac-sha2-512-etm@openssh.com", "hmac-sha2-512");
        SshAlgorithms hostKeys = SshAlgorithms.fromOpenSshConfig(Map.of("HostKeyAlgorithms", "ssh-ed25519*")::get);
        assertThat(hostKeys.hostKeys()).containsExactlyInAnyOrder("ssh-ed25519", "ssh-ed25519-cert-v01@openssh.com");
        assertThat(hostKeys.isDefault()).isFalse();
        // OpenSSH's former name of PubkeyAcceptedAlgorithms is read too, and written under the new one.
        SshAlgorithms publicKeys = SshAlgorithms.fromOpenSshConfig(Map.of("PubkeyAcceptedKeyTypes", "-ssh-rsa")::get);
        assertThat(publicKeys.publicKeys()).contains("rsa-sha2-512", "ssh-ed25519").doesNotContain("ssh-rsa");
        assertThat(publicKeys.written()).isEqualTo("PubkeyAcceptedAlgorithms -ssh-rsa");
    }

    @Test
    void aValueThatLeavesNothingIsRefusedNamingTheOptionAndWhatThisClientHas() {
        assertThatThrownBy(() -> kex("sntrup4591761x25519-sha512@tinyssh.org"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sets KexAlgorithms to 'sntrup4591761x25519-sha512@tinyssh.org'")
                .hasMessageContaining("no key exchange that egressctl's SSH client implements")
                .hasMessageContaining("curve25519-sha256");
        assertThatThrownBy(() -> SshAlgorithms.fromOpenSshConfig(Map.of("MACs", "-*")::get))
                .hasMessageContaining("sets MACs to '-*', which leaves no MAC");
        assertThatThrownBy(() -> ciphers(" , "))
                .hasMessageContaining("names no cipher").hasMessageContaining("'ssh -Q cipher'");
    }
}
