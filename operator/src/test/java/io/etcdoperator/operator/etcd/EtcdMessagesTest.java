package io.etcdoperator.operator.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.etcd.jetcd.api.AlarmMember;
import io.etcd.jetcd.api.AlarmResponse;
import io.etcd.jetcd.api.AlarmType;
import io.etcd.jetcd.api.Member;
import io.etcd.jetcd.api.MemberRemoveRequest;
import io.etcd.jetcd.api.ResponseHeader;
import io.etcd.jetcd.api.StatusResponse;
import java.io.ByteArrayInputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

class EtcdMessagesTest {

  @Test
  void statusReadsTheFieldsEtcd34AddedFromUnknownFields() {
    UnknownFieldSet extra =
        UnknownFieldSet.newBuilder()
            .addField(7, UnknownFieldSet.Field.newBuilder().addVarint(41).build())
            .addField(
                8,
                UnknownFieldSet.Field.newBuilder()
                    .addLengthDelimited(ByteString.copyFromUtf8("memberID:1 alarm:NOSPACE "))
                    .build())
            .addField(9, UnknownFieldSet.Field.newBuilder().addVarint(4096).build())
            .addField(10, UnknownFieldSet.Field.newBuilder().addVarint(1).build())
            .build();
    StatusResponse wire =
        StatusResponse.newBuilder()
            .setHeader(ResponseHeader.newBuilder().setClusterId(0xc1).setMemberId(0xa))
            .setVersion("3.4.23")
            .setDbSize(20480)
            .setLeader(0xb)
            .setRaftIndex(42)
            .setRaftTerm(3)
            .setUnknownFields(extra)
            .build();

    EtcdStatus s = EtcdMessages.status("http://a:2379", wire);

    assertThat(s.reachable()).isTrue();
    assertThat(s.clusterId()).isEqualTo(0xc1);
    assertThat(s.memberId()).isEqualTo(0xa);
    assertThat(s.leaderId()).isEqualTo(0xb);
    assertThat(s.isLeader()).isFalse();
    assertThat(s.raftTerm()).isEqualTo(3);
    assertThat(s.raftIndex()).isEqualTo(42);
    assertThat(s.raftAppliedIndex()).isEqualTo(41);
    assertThat(s.dbSize()).isEqualTo(20480);
    assertThat(s.dbSizeInUse()).isEqualTo(4096);
    assertThat(s.learner()).isTrue();
    assertThat(s.errors()).containsExactly("memberID:1 alarm:NOSPACE ");
    assertThat(s.version()).isEqualTo("3.4.23");
  }

  @Test
  void statusOfAnOlderServerHasZeroesForTheNewFields() {
    EtcdStatus s =
        EtcdMessages.status("http://a:2379", StatusResponse.newBuilder().setLeader(1).build());
    assertThat(s.raftAppliedIndex()).isZero();
    assertThat(s.learner()).isFalse();
    assertThat(s.errors()).isEmpty();
  }

  @Test
  void memberPromoteSpeaksTheWireFormatOfMemberRemove() throws Exception {
    MemberRemoveRequest request = MemberRemoveRequest.newBuilder().setID(0x1234).build();
    byte[] bytes =
        EtcdMessages.MEMBER_PROMOTE.getRequestMarshaller().stream(request).readAllBytes();
    // MemberPromoteRequest is {uint64 ID = 1}: tag 0x08, then the varint.
    assertThat(bytes).isEqualTo(request.toByteArray());
    assertThat(bytes[0]).isEqualTo((byte) 0x08);
    assertThat(EtcdMessages.MEMBER_PROMOTE.getFullMethodName())
        .isEqualTo("etcdserverpb.Cluster/MemberPromote");
    var response =
        EtcdMessages.MEMBER_PROMOTE
            .getResponseMarshaller()
            .parse(
                new ByteArrayInputStream(
                    io.etcd.jetcd.api.MemberRemoveResponse.newBuilder()
                        .addMembers(Member.newBuilder().setID(7).setName("m"))
                        .build()
                        .toByteArray()));
    assertThat(response.getMembers(0).getID()).isEqualTo(7);
  }

  @Test
  void membersAndAlarmsAreTranslated() {
    Member learner =
        Member.newBuilder().setID(9).addPeerURLs("http://10.0.0.9:2380").setIsLearner(true).build();
    EtcdMemberList list =
        EtcdMessages.memberList(
            "http://a:2379",
            ResponseHeader.newBuilder().setClusterId(0xc1).setMemberId(1).build(),
            List.of(
                Member.newBuilder()
                    .setID(1)
                    .setName("a")
                    .addPeerURLs("http://a:2380")
                    .addClientURLs("http://a:2379")
                    .build(),
                learner));
    assertThat(list.voters()).extracting(EtcdMember::name).containsExactly("a");
    EtcdMember l = list.learners().get(0);
    assertThat(l.started()).isFalse();
    assertThat(l.hexId()).isEqualTo("9");
    assertThat(list.findByPeerUrl("http://10.0.0.9:2380")).contains(l);
    assertThat(list.findByClientUrl("http://a:2379").orElseThrow().id()).isEqualTo(1);

    AlarmResponse alarms =
        AlarmResponse.newBuilder()
            .addAlarms(AlarmMember.newBuilder().setMemberID(1).setAlarm(AlarmType.NOSPACE))
            .addAlarms(AlarmMember.newBuilder().setMemberID(2).setAlarmValue(2))
            .build();
    assertThat(EtcdMessages.alarms(alarms))
        .containsExactly(new Alarm(1, "NOSPACE"), new Alarm(2, "CORRUPT"));
  }

  @Test
  void alarmTypesAreNumberedAsEtcdNumbersThemNotAsJetcdsEnumDoes() {
    // jetcd's enum has no CORRUPT: disarming by its name once threw in every reconcile.
    assertThat(EtcdMessages.alarmNumber("NOSPACE")).isEqualTo(AlarmType.NOSPACE_VALUE);
    assertThat(EtcdMessages.alarmNumber("CORRUPT")).isEqualTo(2);
    assertThat(EtcdMessages.alarmNumber("ALARM_7")).isEqualTo(7);
    assertThatThrownBy(() -> EtcdMessages.alarmNumber("NOSUCH")).hasMessageContaining("NOSUCH");
  }
}
