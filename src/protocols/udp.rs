//! Fields of the plain-UDP record (datagrams no decoder claims) and of the notes the UDP layer
//! adds to any record.

crate::field_defs! {
    UDP = group("udp", "User Datagram Protocol").desc("A datagram no decoder claimed");
    LENGTH = uint("udp.length", "Payload length").unit("bytes").desc("Payload length the UDP header declares (header excluded)");
    PAYLOAD = bytes("udp.payload", "Payload").desc("The payload as captured");
}
