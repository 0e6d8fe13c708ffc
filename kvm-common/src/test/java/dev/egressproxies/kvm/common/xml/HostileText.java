package dev.egressproxies.kvm.common.xml;

import java.util.List;

/** Values built to break naive XML writing: markup, both quotes, a CDATA end, entities, non-ASCII. */
final class HostileText {
    static final List<String> VALUES = List.of(
            "a\"b'c",
            "<domain type='evil'>",
            "x & y &amp; &#0; &lt;",
            "]]> after a CDATA end",
            "<![CDATA[ inside ]]>",
            "<!-- comment --> <?pi ?>",
            "tab\there\nnewline\r\rreturn",
            "  leading and trailing  ",
            "žluťoučký kůň 🐴 \u00A0nbsp",
            "${jndi:ldap://x} %s {0}");

    private HostileText() {
    }
}
