package frontend

import (
	"context"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/txn"
)

// spannerServer serves google.spanner.v1.Spanner.
type spannerServer struct {
	spannerpb.UnimplementedSpannerServer
	b *Backend
}

func sessionPB(s *txn.Session) *spannerpb.Session {
	return &spannerpb.Session{
		Name:                   s.Name,
		Labels:                 s.Labels,
		CreateTime:             timestamppb.New(s.Created),
		ApproximateLastUseTime: timestamppb.New(s.LastUse()),
		CreatorRole:            s.CreatorRole,
		Multiplexed:            s.Multiplexed,
	}
}

func (s *spannerServer) CreateSession(_ context.Context, req *spannerpb.CreateSessionRequest) (*spannerpb.Session, error) {
	db, err := s.b.Reg.Database(req.Database)
	if err != nil {
		return nil, err
	}
	sess := s.b.Txns.CreateSession(db, req.Database, req.GetSession().GetMultiplexed(), req.GetSession().GetLabels(), req.GetSession().GetCreatorRole())
	return sessionPB(sess), nil
}

func (s *spannerServer) BatchCreateSessions(_ context.Context, req *spannerpb.BatchCreateSessionsRequest) (*spannerpb.BatchCreateSessionsResponse, error) {
	db, err := s.b.Reg.Database(req.Database)
	if err != nil {
		return nil, err
	}
	if req.SessionCount <= 0 {
		return nil, spanerr.InvalidArgument("Invalid number of sessions %d. Requested sessions should be greater than 0.", req.SessionCount)
	}
	n := req.SessionCount
	if n > 100 {
		n = 100
	}
	resp := &spannerpb.BatchCreateSessionsResponse{}
	for _, sess := range s.b.Txns.CreateSessions(db, req.Database, int(n), false, req.GetSessionTemplate().GetLabels(), req.GetSessionTemplate().GetCreatorRole()) {
		resp.Session = append(resp.Session, sessionPB(sess))
	}
	return resp, nil
}

func (s *spannerServer) GetSession(_ context.Context, req *spannerpb.GetSessionRequest) (*spannerpb.Session, error) {
	sess, err := s.b.Txns.Session(req.Name)
	if err != nil {
		return nil, err
	}
	return sessionPB(sess), nil
}

func (s *spannerServer) ListSessions(_ context.Context, req *spannerpb.ListSessionsRequest) (*spannerpb.ListSessionsResponse, error) {
	db, err := s.b.Reg.Database(req.Database)
	if err != nil {
		return nil, err
	}
	resp := &spannerpb.ListSessionsResponse{}
	for _, sess := range s.b.Txns.Sessions(db) {
		resp.Sessions = append(resp.Sessions, sessionPB(sess))
	}
	return resp, nil
}

func (s *spannerServer) DeleteSession(_ context.Context, req *spannerpb.DeleteSessionRequest) (*emptypb.Empty, error) {
	if err := s.b.Txns.DeleteSession(req.Name); err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}
