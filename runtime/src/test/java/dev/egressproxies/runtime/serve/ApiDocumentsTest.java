package dev.egressproxies.runtime.serve;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApiDocumentsTest {
    @Test
    void imageUrlsLoseTheirCredentialsAndQuery() {
        assertThat(ApiDocuments.shownImage("https://user:s3cret@images.example/debian.qcow2?sig=abc"))
                .isEqualTo("https://images.example/debian.qcow2 [credentials redacted]")
                .doesNotContain("s3cret").doesNotContain("abc");
        assertThat(ApiDocuments.shownImage("http://127.0.0.1:8080/tiny.qcow2"))
                .isEqualTo("http://127.0.0.1:8080/tiny.qcow2");
        assertThat(ApiDocuments.shownImage("debian-12")).isEqualTo("debian-12");
        assertThat(ApiDocuments.shownImage("https://us er:pw@bad url")).isEqualTo("[redacted]");
    }
}
